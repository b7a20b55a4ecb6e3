/**
 * Who may use the provider endpoints, cross-provider isolation, and a provider acting for
 * its own merchants on merchant endpoints with X-Entity-Id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/routes';
import { getItem } from '../../functions/platform/table';
import { participantKey } from '../../functions/identity/participant-store';
import { startTestApp, type TestApp } from '../support/app';

let t: TestApp;
let a: { id: string; apiKey: string }; // provider A
let b: { id: string; apiKey: string }; // provider B
let mA: { id: string; apiKey: string; email: string }; // A's merchant
let mB: { id: string; apiKey: string }; // B's merchant

beforeAll(async () => {
  t = await startTestApp();
  a = await t.participant('provider');
  b = await t.participant('provider');
  await t.call('PATCH', `/v1/operator/providers/${b.id}`, { key: t.operatorKey, body: { maxTrustLevel: 'premium' } });
  const ra = await t.call('POST', '/v1/provider/merchants', {
    key: a.apiKey,
    body: { merchants: [{ name: 'A shop', email: `a-shop-${Date.now()}@example.com` }] },
  });
  mA = ra.body.data.merchants[0];
  const rb = await t.call('POST', '/v1/provider/merchants', {
    key: b.apiKey,
    body: { merchants: [{ name: 'B shop', email: `b-shop-${Date.now()}@example.com` }] },
  });
  mB = rb.body.data.merchants[0];
});
afterAll(async () => t?.stop());

const PROVIDER_ROUTES = ROUTES.filter((r) => r.handler.startsWith('api/provider/'));

/** Every provider endpoint that takes an entityId, called for `entityId` with valid input otherwise. */
function entityCalls(entityId: string): [string, string, { query?: Record<string, string>; body?: Record<string, unknown> }][] {
  return [
    ['GET', '/v1/provider/merchant', { query: { entityId } }],
    ['PATCH', '/v1/provider/merchant', { body: { entityId, name: 'Taken over' } }],
    ['PATCH', '/v1/provider/merchant/trust', { body: { entityId, trusted: true, trustLevel: 'basic' } }],
    ['GET', '/v1/provider/merchant/trust', { query: { entityId } }],
    ['GET', '/v1/provider/merchant/trust/device-permission', { query: { entityId } }],
    ['POST', '/v1/provider/merchant/trust/validate', { body: { entityId, requiredTrustLevel: 'basic' } }],
  ];
}

describe('participant kinds on provider endpoints', () => {
  it('covers all nine provider routes', () => {
    expect(PROVIDER_ROUTES).toHaveLength(9);
    expect(PROVIDER_ROUTES.every((r) => r.kinds.length === 1 && r.kinds[0] === 'provider')).toBe(true);
  });

  it.each(['bank', 'merchant'] as const)('a %s key gets 403 Forbidden for this participant type on every provider route', async (kind) => {
    const who = kind === 'merchant' ? mA : await t.participant('bank');
    for (const r of PROVIDER_ROUTES) {
      const res = await t.call(r.method, r.path, {
        key: who.apiKey,
        query: { entityId: mA.id },
        body: r.method === 'GET' ? undefined : { entityId: mA.id },
      });
      expect(res.status, `${r.method} ${r.path}`).toBe(403);
      expect(res.body).toMatchObject({ statusCode: 403, success: false, message: 'Forbidden for this participant type' });
    }
  });

  it('the operator key is not a provider key either', async () => {
    const res = await t.call('GET', '/v1/provider/merchants', { key: t.operatorKey });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Forbidden for this participant type');
  });

  it('no key: 401 Missing API key', async () => {
    for (const r of PROVIDER_ROUTES) {
      const res = await t.call(r.method, r.path);
      expect(res.status, `${r.method} ${r.path}`).toBe(401);
      expect(res.body.message).toBe('Missing API key');
    }
  });
});

describe('cross-provider isolation', () => {
  it('another provider gets 404 Merchant not found on every endpoint taking entityId, and changes nothing', async () => {
    const before = await getItem(participantKey(mA.id));
    for (const [method, path, opts] of entityCalls(mA.id)) {
      const res = await t.call(method, path, { key: b.apiKey, ...opts });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, success: false, message: 'Merchant not found' });
    }
    expect(await getItem(participantKey(mA.id))).toEqual(before);
  });

  it('the same calls succeed for the owner', async () => {
    for (const [method, path, opts] of entityCalls(mA.id)) {
      const res = await t.call(method, path, { key: a.apiKey, ...opts });
      expect(res.status, `${method} ${path}`).toBe(200);
    }
  });

  it('a merchant of no provider (operator-created) is not found for a provider', async () => {
    const lone = await t.participant('merchant');
    for (const [method, path, opts] of entityCalls(lone.id)) {
      const res = await t.call(method, path, { key: a.apiKey, ...opts });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.message).toBe('Merchant not found');
    }
  });

  it('a merchant the operator attached to a provider belongs to that provider', async () => {
    const attached = await t.participant('merchant', { providerId: a.id });
    const got = await t.call('GET', '/v1/provider/merchant', { key: a.apiKey, query: { entityId: attached.id } });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: attached.id, providerId: a.id, trusted: false, trustLevel: 'basic' });
    const list = await t.call('GET', '/v1/provider/merchants', { key: a.apiKey });
    expect(list.body.data.merchants.map((m: any) => m.id)).toContain(attached.id);
    expect((await t.call('GET', '/v1/provider/merchant', { key: b.apiKey, query: { entityId: attached.id } })).status).toBe(404);
  });

  it("lists never show another provider's merchants", async () => {
    const listB = await t.call('GET', '/v1/provider/merchants', { key: b.apiKey, query: { ids: `${mA.id},${mB.id}` } });
    expect(listB.body.data).toEqual({ merchants: [expect.objectContaining({ id: mB.id })], total: 1, hasMore: false });
    const allB = await t.call('GET', '/v1/provider/merchants', { key: b.apiKey });
    expect(allB.body.data.merchants.map((m: any) => m.id)).toEqual([mB.id]);
    const trustB = await t.call('GET', '/v1/provider/merchant/trust/multiple', { key: b.apiKey });
    expect(trustB.body.data.map((d: any) => d.entityId)).toEqual([mB.id]);
    expect(trustB.body.total).toBe(1);
  });

  it("a provider cannot move another provider's merchant's email guard", async () => {
    const res = await t.call('PATCH', '/v1/provider/merchant', {
      key: b.apiKey,
      body: { entityId: mA.id, email: `stolen-${Date.now()}@example.com` },
    });
    expect(res.status).toBe(404);
    const got = await t.call('GET', '/v1/provider/merchant', { key: a.apiKey, query: { entityId: mA.id } });
    expect(got.body.data.email).toBe(mA.email);
  });
});

describe('a provider acting for its merchant (X-Entity-Id)', () => {
  const balance = (key: string, entityId?: string) =>
    t.call('GET', '/v1/balance/details', { key, headers: entityId === undefined ? {} : { 'x-entity-id': entityId } });

  it('gets exactly what the merchant gets on a merchant route', async () => {
    const asMerchant = await balance(mA.apiKey);
    const asProvider = await balance(a.apiKey, mA.id);
    expect([400, 401, 403, 404]).not.toContain(asProvider.status);
    expect(asProvider.status).toBe(asMerchant.status);
    expect(asProvider.body).toEqual(asMerchant.body);
  });

  it("gets 404 Merchant not found for another provider's merchant, an unknown id, a non-merchant or an empty header", async () => {
    const lone = await t.participant('merchant');
    for (const id of [mB.id, lone.id, 'mer_unknown', b.id, '']) {
      const res = await balance(a.apiKey, id);
      expect(res.status, id).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, success: false, message: 'Merchant not found' });
    }
  });

  it('without X-Entity-Id a provider is told to send it', async () => {
    const res = await balance(a.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('X-Entity-Id header is required when a provider calls a merchant endpoint');
  });
});
