/**
 * The integration client's contract check (test/support/contract.ts) bites: an undocumented
 * status, a body that breaks the documented schema, and a typed `data` with a wrong field
 * are each reported; a conforming answer and an undocumented path are not.
 */
import { describe, expect, it } from 'vitest';
import { contractProblems } from '../support/contract';

const json = 'application/json';
const ok = (data: unknown) => ({ statusCode: 200, success: true, message: 'Events retrieved', data });

describe('contract check against the served OpenAPI document', () => {
  it('accepts a conforming answer', () => {
    expect(contractProblems('sandbox', 'GET', '/v1/events?limit=2', 200, ok({ events: [], hasMore: false }), json)).toEqual([]);
    expect(
      contractProblems(
        'sandbox',
        'GET',
        '/v1/events/evt_1',
        404,
        { statusCode: 404, success: false, message: 'Event not found', code: 'not_found' },
        json,
      ),
    ).toEqual([]);
  });

  it('reports an undocumented status', () => {
    expect(contractProblems('sandbox', 'GET', '/v1/events', 202, ok({}), json)).toEqual([
      expect.stringMatching(/^GET \/v1\/events -> 202: status not documented/),
    ]);
  });

  it('reports a typed data field of the wrong type, and a missing envelope field', () => {
    expect(contractProblems('sandbox', 'GET', '/v1/events', 200, ok({ events: [], hasMore: 'no' }), json).join('\n')).toContain(
      '/data/hasMore must be boolean',
    );
    expect(
      contractProblems(
        'sandbox',
        'GET',
        '/v1/events',
        200,
        { statusCode: 200, success: true, data: { events: [], hasMore: false } },
        json,
      ).join('\n'),
    ).toContain("must have required property 'message'");
  });

  it('leaves requests to no documented operation alone (router 404/405)', () => {
    expect(contractProblems('sandbox', 'GET', '/v1/nothing-here', 404, { statusCode: 404 }, json)).toEqual([]);
    expect(contractProblems('live', 'POST', '/v1/sandbox/settlements/run', 404, { statusCode: 404 }, json)).toEqual([]);
  });
});
