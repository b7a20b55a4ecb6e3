/**
 * The integration client's contract check (test/support/contract.ts) bites: an undocumented
 * status, a body that breaks the documented schema, and a typed `data` with a wrong field
 * are each reported; a conforming answer and an undocumented path are not.
 */
import { describe, expect, it } from 'vitest';
import { contractProblems, eventProblems, surfaceProblems } from '../support/contract';
import { EVENT_CATALOG } from '../../functions/events/schemas';

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
        {
          statusCode: 404,
          success: false,
          message: 'Event not found',
          code: 'event_not_found',
          type: 'not_found_error',
          docUrl: '/docs#error-event_not_found',
          requestId: 'r-1',
        },
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

describe('the error contract of every answer (code, type, requestId, Idpay-Version)', () => {
  const headers = (h: Record<string, string> = {}) => new Headers({ 'Idpay-Version': '2026-11-01', 'X-Request-Id': 'r-1', ...h });
  const error = (status: number, message: string, code: string, type: string, extra: Record<string, unknown> = {}) => ({
    statusCode: status,
    success: false,
    message,
    code,
    type,
    docUrl: `/docs#error-${code}`,
    requestId: 'r-1',
    ...extra,
  });

  it('accepts a specific code of the table with its message, status, type and request id; a filled template too', () => {
    expect(surfaceProblems('sandbox', 404, headers(), error(404, 'Event not found', 'event_not_found', 'not_found_error'))).toEqual([]);
    const wrongStage = error(401, 'API key is not valid for the live environment', 'api_key_wrong_environment', 'authentication_error');
    expect(surfaceProblems('sandbox', 401, headers(), wrongStage)).toEqual([]);
    expect(surfaceProblems('sandbox', 200, headers(), { statusCode: 200, success: true })).toEqual([]);
  });

  it('reports a coarse or unknown code, a code of another message or status, a wrong type, a missing request id or version', () => {
    const problems = (status: number, body: unknown, h = headers()) => surfaceProblems('sandbox', status, h, body).join('\n');
    expect(problems(404, error(404, 'Event not found', 'not_found', 'not_found_error'))).toContain('"not_found" is not in the error table');
    expect(problems(404, error(404, 'Event not found', 'refund_not_found', 'not_found_error'))).toContain(
      'is not the message of refund_not_found',
    );
    expect(problems(400, error(400, 'Event not found', 'event_not_found', 'invalid_request_error'))).toContain(
      'documented for 404, not 400',
    );
    expect(problems(404, error(404, 'Event not found', 'event_not_found', 'api_error'))).toContain('expected not_found_error');
    expect(problems(404, error(404, 'Event not found', 'event_not_found', 'not_found_error', { requestId: 'other' }))).toContain(
      'is not the X-Request-Id',
    );
    expect(problems(200, { statusCode: 200 }, new Headers())).toContain('Idpay-Version is null');
    expect(problems(500, 'Internal Server Error')).toContain('an error without a JSON body');
  });

  it("checks a bill or pay answer's refused elements", () => {
    const refused = { statusCode: 403, success: false, message: 'Customer has not approved billing', phrase: 'p', entityId: 'm' };
    expect(
      surfaceProblems('sandbox', 403, headers(), [
        { ...refused, code: 'billing_not_approved', type: 'permission_error', docUrl: '/docs#error-billing_not_approved' },
      ]),
    ).toEqual([]);
    expect(surfaceProblems('sandbox', 207, headers(), [{ statusCode: 201, success: true }, refused]).join('\n')).toContain(
      'element 1: code undefined is not in the error table',
    );
  });
});

describe('events of the events API against their type', () => {
  const event = (data: Record<string, unknown>) => ({
    id: 'evt_1',
    type: 'webhook.test',
    createdAt: '2026-11-02T10:00:00.000Z',
    apiVersion: '2026-11-01',
    livemode: false,
    data,
    deliveries: [],
  });
  const ok = { endpointId: 'whe_1', participantId: 'mer_1', message: 'hello' };

  it("accepts an event whose data is its type's schema; reports a missing field, a wrong type, an undocumented field", () => {
    const one = (data: Record<string, unknown>) => eventProblems('GET', '/v1/events/evt_1', 200, { data: event(data) });
    expect(EVENT_CATALOG['webhook.test'].data.safeParse(ok).success).toBe(true);
    expect(one(ok)).toEqual([]);
    expect(one({ endpointId: 'whe_1', message: 'hello' })).toEqual([expect.stringContaining('data.participantId')]);
    expect(one({ ...ok, message: 3 })).toEqual([expect.stringContaining('data.message')]);
    const list = eventProblems('GET', '/v1/events?limit=2', 200, { data: { events: [event({ ...ok, extra: 1 })], hasMore: false } });
    expect(list).toEqual(['event evt_1 (webhook.test): data.extra is not in its schema']);
    expect(eventProblems('GET', '/v1/events', 200, { data: { events: [{ ...event(ok), type: 'no.such' }] } })).toEqual([
      'event evt_1 (no.such): not an event type',
    ]);
  });
});
