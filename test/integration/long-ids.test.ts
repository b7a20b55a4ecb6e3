/**
 * Ids that cannot exist (DESIGN 9.2): a path segment longer than 128 characters is the
 * route's 404 with its resource's message on every route with a path parameter; an id header
 * (`X-Entity-Id`, `X-Participant-Id`, `X-Test-Clock`) longer than 128 is 400. Never a 5xx
 * (a DynamoDB key over 2,048 bytes used to surface as one). The DynamoDB requests they cost
 * (none) are counted in request-cost.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH, routesFor } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import { signUpAndIn } from '../support/people';

let t: TestApp;
let keys: Record<'bank' | 'merchant' | 'provider', string>;
let personToken: string;
beforeAll(async () => {
  t = await startTestApp();
  const [bank, merchant, provider] = await Promise.all([t.participant('bank'), t.participant('merchant'), t.participant('provider')]);
  keys = { bank: bank.apiKey, merchant: merchant.apiKey, provider: provider.apiKey };
  personToken = (await signUpAndIn()).accessToken;
});
afterAll(async () => {
  await t?.stop();
});

const withParams = routesFor('sandbox').filter((r) => r.path.includes('{'));

/** A credential the route accepts (its first kind; a person on people's routes). */
function keyFor(r: (typeof withParams)[number]): string {
  if (r.caller) return personToken;
  const kind = r.kinds[0]!;
  return kind === 'operator' ? t.operatorKey : keys[kind];
}

describe('over-long path ids', () => {
  it('every route with a path parameter declares its not-found message', () => {
    expect(withParams.length).toBeGreaterThan(30);
    expect(withParams.filter((r) => !r.notFound).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  for (const length of [MAX_ID_LENGTH + 1, 2_050]) {
    it(`an id of ${length} characters is the route's 404 on every route with a path parameter`, async () => {
      const problems: string[] = [];
      for (const r of withParams) {
        const path = r.path.replace(/\{[^}]+\}/g, 'x'.repeat(length));
        const res = await t.call(r.method, path, { key: keyFor(r), body: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
        if (res.status !== 404 || res.body.message !== r.notFound)
          problems.push(`${r.method} ${r.path}: ${res.status} ${res.body.message}`);
      }
      expect(problems).toEqual([]);
    });
  }

  it('an unknown id of ordinary length that is 404 is the same message as an over-long one (one not-found message per route)', async () => {
    const problems: string[] = [];
    for (const r of withParams) {
      const path = r.path.replace(/\{[^}]+\}/g, 'nope_0000000000000000');
      const res = await t.call(r.method, path, { key: keyFor(r), body: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      if (res.status === 404 && res.body.message !== r.notFound)
        problems.push(`${r.method} ${r.path}: ${res.body.message} (route: ${r.notFound})`);
    }
    expect(problems).toEqual([]);
  });

  it('an id of exactly 128 characters is still looked up (the answer is the resource not found, from its read)', async () => {
    const r = await t.call('GET', `/v1/recurring/${'s'.repeat(MAX_ID_LENGTH)}`, { key: keys.merchant });
    expect([r.status, r.body.message]).toEqual([404, 'Recurring schedule not found']);
  });
});

describe('over-long id headers', () => {
  it('X-Entity-Id, X-Participant-Id and X-Test-Clock over 128 characters are 400 with the header named', async () => {
    const long = 'h'.repeat(1_100);
    const entity = await t.call('GET', '/v1/balance/details', { key: keys.provider, headers: { 'x-entity-id': long } });
    expect([entity.status, entity.body.message, entity.body.errors]).toEqual([
      400,
      'Invalid X-Entity-Id header',
      [{ path: 'x-entity-id', message: 'must be at most 128 characters' }],
    ]);
    const participant = await t.call('GET', '/v1/team/members', { key: personToken, headers: { 'x-participant-id': long } });
    expect([participant.status, participant.body.message]).toEqual([400, 'Invalid X-Participant-Id header']);
    const clock = await t.call('POST', '/v1/customer/pay', {
      key: keys.merchant,
      headers: { 'x-test-clock': long },
      body: { lookupPhrases: ['x'], amount: 10, currency: 'NGN', description: 'x' },
    });
    expect([clock.status, clock.body.message]).toEqual([400, 'Invalid X-Test-Clock header']);
    // At the bound, the header is read as before: an unknown merchant, an unknown clock.
    const atBound = await t.call('GET', '/v1/balance/details', {
      key: keys.provider,
      headers: { 'x-entity-id': 'm'.repeat(MAX_ID_LENGTH) },
    });
    expect([atBound.status, atBound.body.message]).toEqual([404, 'Merchant not found']);
  });
});
