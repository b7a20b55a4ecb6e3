/** Provider trust endpoints: update (maxTrustLevel, lastVerified, event), read, list, device permission, validate. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../functions/platform/clients';
import { getItem, table } from '../../functions/platform/table';
import { participantKey } from '../../functions/identity/participant-store';
import { startTestApp, type TestApp } from '../support/app';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let n = 0;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.stop());

async function newProvider() {
  return t.participant('provider');
}

async function newMerchants(providerKey: string, count = 1): Promise<{ id: string; name: string; apiKey: string }[]> {
  const merchants = Array.from({ length: count }, () => ({ name: `Trust M${++n}`, email: `trust${n}-${Date.now()}@example.com` }));
  const r = await t.call('POST', '/v1/provider/merchants', { key: providerKey, body: { merchants } });
  expect(r.status).toBe(201);
  return r.body.data.merchants;
}

const patchTrust = (key: string, body: Record<string, unknown>) => t.call('PATCH', '/v1/provider/merchant/trust', { key, body });
/** The discovery limits in force without a provider's own (DESIGN 10.5: GET and PATCH of the trust answer them). */
const DEFAULT_DISCOVERY_LIMITS = { discoveryDailyLimit: 1000, discoveryMissLimit: 100 };
const getTrust = (key: string, entityId: string) => t.call('GET', '/v1/provider/merchant/trust', { key, query: { entityId } });
const setMax = (providerId: string, maxTrustLevel: string) =>
  t.call('PATCH', `/v1/operator/providers/${providerId}`, { key: t.operatorKey, body: { maxTrustLevel } });

/** The committed `merchant.trust.updated` event items for a merchant, oldest first. */
async function trustEvents(merchantId: string) {
  const items: any[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'sk = :evt AND #type = :type AND #to = :to',
        ExpressionAttributeNames: { '#type': 'type', '#to': 'to' },
        ExpressionAttributeValues: { ':evt': 'EVT', ':type': 'merchant.trust.updated', ':to': merchantId },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => (a.data.lastVerified < b.data.lastVerified ? -1 : 1));
}

describe('GET /v1/provider/merchant/trust', () => {
  it("returns a new merchant's Trust status: untrusted, basic, no device lookup, never verified", async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const r = await getTrust(p.apiKey, m!.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
    expect(r.body.data).toEqual({
      entityId: m!.id,
      trusted: false,
      trustLevel: 'basic',
      deviceLookupEnabled: false,
      lastVerified: null,
      ...DEFAULT_DISCOVERY_LIMITS,
    });
  });

  it('400 Invalid query parameters without entityId; 404 Merchant not found for an unknown one', async () => {
    const p = await newProvider();
    const a = await t.call('GET', '/v1/provider/merchant/trust', { key: p.apiKey });
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('Invalid query parameters');
    const b = await getTrust(p.apiKey, 'mer_unknown');
    expect(b.status).toBe(404);
    expect(b.body.message).toBe('Merchant not found');
  });
});

describe('PATCH /v1/provider/merchant/trust', () => {
  it('sets the trust, answers with it, and applies at once to the reads', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const r = await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced', deviceLookupEnabled: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
    expect(r.body.data).toMatchObject({
      trusted: true,
      trustLevel: 'enhanced',
      deviceLookupEnabled: true,
      lastVerified: expect.any(String),
    });
    const g = await getTrust(p.apiKey, m!.id);
    expect(g.body.data).toEqual({
      entityId: m!.id,
      trusted: true,
      trustLevel: 'enhanced',
      deviceLookupEnabled: true,
      lastVerified: r.body.data.lastVerified,
      ...DEFAULT_DISCOVERY_LIMITS,
    });
    const merchant = await t.call('GET', '/v1/provider/merchant', { key: p.apiKey, query: { entityId: m!.id } });
    expect(merchant.body.data).toMatchObject({ trusted: true, trustLevel: 'enhanced' });
  });

  it('keeps trustLevel and deviceLookupEnabled when omitted', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced', deviceLookupEnabled: true });
    const r = await patchTrust(p.apiKey, { entityId: m!.id, trusted: false });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ trusted: false, trustLevel: 'enhanced', deviceLookupEnabled: true });
  });

  it('sets lastVerified on every change', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const stamps: string[] = [];
    for (const body of [{ trusted: true }, { trusted: true }, { trusted: false, deviceLookupEnabled: true }]) {
      await sleep(5);
      const before = Date.now();
      const r = await patchTrust(p.apiKey, { entityId: m!.id, ...body });
      expect(r.status).toBe(200);
      const stamp = r.body.data.lastVerified as string;
      expect(new Date(stamp).toISOString()).toBe(stamp);
      expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before);
      expect((await getTrust(p.apiKey, m!.id)).body.data.lastVerified).toBe(stamp);
      stamps.push(stamp);
    }
    expect(new Set(stamps).size).toBe(3);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it('enforces maxTrustLevel: default enhanced, then what the operator sets', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    // Default: enhanced allowed, premium refused, nothing written.
    expect((await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced' })).status).toBe(200);
    const before = (await getTrust(p.apiKey, m!.id)).body.data;
    const refused = await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'premium' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ statusCode: 403, success: false, message: 'Insufficient permissions to modify trust level' });
    expect((await getTrust(p.apiKey, m!.id)).body.data).toEqual(before);
    expect(await trustEvents(m!.id)).toHaveLength(1);

    // The operator raises the ceiling: premium is granted.
    expect((await setMax(p.id, 'premium')).status).toBe(200);
    const granted = await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'premium' });
    expect(granted.status).toBe(200);
    expect(granted.body.data.trustLevel).toBe('premium');

    // Lowered to basic: enhanced is refused again, basic (a downgrade) is fine.
    expect((await setMax(p.id, 'basic')).status).toBe(200);
    expect((await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced' })).status).toBe(403);
    expect((await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'basic' })).status).toBe(200);
    // Changing only `trusted` does not touch the level, so it is not checked against the ceiling.
    expect((await patchTrust(p.apiKey, { entityId: m!.id, trusted: false })).status).toBe(200);
  });

  it('the ceiling of one provider does not apply to another', async () => {
    const a = await newProvider();
    const b = await newProvider();
    await setMax(a.id, 'premium');
    const [ma] = await newMerchants(a.apiKey);
    const [mb] = await newMerchants(b.apiKey);
    expect((await patchTrust(a.apiKey, { entityId: ma!.id, trusted: true, trustLevel: 'premium' })).status).toBe(200);
    expect((await patchTrust(b.apiKey, { entityId: mb!.id, trusted: true, trustLevel: 'premium' })).status).toBe(403);
  });

  it.each([
    ['trustLevel gold', { trusted: true, trustLevel: 'gold' }, 'Invalid trust level specified'],
    ['trustLevel in capitals', { trusted: true, trustLevel: 'PREMIUM' }, 'Invalid trust level specified'],
    ['trustLevel a number', { trusted: true, trustLevel: 2 }, 'Invalid trust level specified'],
    ['trustLevel null', { trusted: true, trustLevel: null }, 'Invalid trust level specified'],
    ['bad level and missing trusted', { trustLevel: 'gold' }, 'Invalid trust level specified'],
    ['missing trusted', {}, 'Invalid request parameters'],
    ['trusted a string', { trusted: 'true' }, 'Invalid request parameters'],
    ['deviceLookupEnabled a string', { trusted: true, deviceLookupEnabled: 'yes' }, 'Invalid request parameters'],
    ['unknown field', { trusted: true, level: 'basic' }, 'Invalid request parameters'],
  ])('400 %s (nothing written)', async (_, body, message) => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const r = await patchTrust(p.apiKey, { entityId: m!.id, ...body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, success: false, message });
    expect((await getTrust(p.apiKey, m!.id)).body.data.lastVerified).toBeNull();
    expect(await trustEvents(m!.id)).toHaveLength(0);
  });

  it('400 Invalid request parameters without entityId; 404 Merchant not found for an unknown one', async () => {
    const p = await newProvider();
    const a = await patchTrust(p.apiKey, { trusted: true });
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('Invalid request parameters');
    const b = await patchTrust(p.apiKey, { entityId: 'mer_unknown', trusted: true });
    expect(b.status).toBe(404);
    expect(b.body.message).toBe('Merchant not found');
  });

  it('commits a merchant.trust.updated event per change with the new state', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const r1 = await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced' });
    await sleep(3);
    const r2 = await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, deviceLookupEnabled: true });
    const events = await trustEvents(m!.id);
    expect(events).toHaveLength(2);
    expect(events.map((e) => e.data)).toEqual([
      {
        entityId: m!.id,
        trusted: true,
        trustLevel: 'enhanced',
        deviceLookupEnabled: false,
        lastVerified: r1.body.data.lastVerified,
        ...DEFAULT_DISCOVERY_LIMITS,
      },
      {
        entityId: m!.id,
        trusted: true,
        trustLevel: 'enhanced',
        deviceLookupEnabled: true,
        lastVerified: r2.body.data.lastVerified,
        ...DEFAULT_DISCOVERY_LIMITS,
      },
    ]);
    for (const e of events) expect(e).toMatchObject({ type: 'merchant.trust.updated', to: m!.id, id: expect.stringMatching(/^evt_/) });
  });

  it('concurrent changes of different fields are both kept (no lost update), one event each', async () => {
    const p = await newProvider();
    const [m] = await newMerchants(p.apiKey);
    const results = await Promise.all([
      patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced' }),
      patchTrust(p.apiKey, { entityId: m!.id, trusted: true, deviceLookupEnabled: true }),
      patchTrust(p.apiKey, { entityId: m!.id, trusted: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await getTrust(p.apiKey, m!.id)).body.data).toMatchObject({ trusted: true, trustLevel: 'enhanced', deviceLookupEnabled: true });
    const events = await trustEvents(m!.id);
    expect(events).toHaveLength(3);
    const stored = await getItem<any>(participantKey(m!.id));
    expect(stored.trustVersion).toBe(3);
    // The last committed event carries the final state.
    const last = events.find((e) => e.data.lastVerified === stored.lastVerified);
    expect(last?.data).toMatchObject({ trusted: true, trustLevel: 'enhanced', deviceLookupEnabled: true });
  });
});

describe('GET /v1/provider/merchant/trust/multiple', () => {
  let p: { id: string; apiKey: string };
  let ms: { id: string; name: string }[];
  beforeAll(async () => {
    p = await newProvider();
    await setMax(p.id, 'premium');
    ms = await newMerchants(p.apiKey, 6);
    // 0: untouched; 1: trusted basic; 2: trusted enhanced; 3: trusted premium + device; 4: untrusted + device; 5: trusted enhanced
    const settings: Record<number, Record<string, unknown>> = {
      1: { trusted: true },
      2: { trusted: true, trustLevel: 'enhanced' },
      3: { trusted: true, trustLevel: 'premium', deviceLookupEnabled: true },
      4: { trusted: false, deviceLookupEnabled: true },
      5: { trusted: true, trustLevel: 'enhanced' },
    };
    for (const [i, s] of Object.entries(settings)) {
      expect((await patchTrust(p.apiKey, { entityId: ms[Number(i)]!.id, ...s })).status).toBe(200);
    }
  });

  const list = (query: Record<string, string | number | boolean> = {}, key = p.apiKey) =>
    t.call('GET', '/v1/provider/merchant/trust/multiple', { key, query });

  it('returns data as an array of Trust status with entityName, and a top-level total', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String), total: 6 });
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body.data.map((d: any) => d.entityId)).toEqual(ms.map((m) => m.id));
    expect(r.body.data[0]).toEqual({
      entityId: ms[0]!.id,
      entityName: ms[0]!.name,
      trusted: false,
      trustLevel: 'basic',
      deviceLookupEnabled: false,
      lastVerified: null,
    });
    expect(r.body.data[3]).toEqual({
      entityId: ms[3]!.id,
      entityName: ms[3]!.name,
      trusted: true,
      trustLevel: 'premium',
      deviceLookupEnabled: true,
      lastVerified: expect.any(String),
    });
  });

  it.each([
    [{ trusted: true }, [1, 2, 3, 5]],
    [{ trusted: false }, [0, 4]],
    [{ trustLevel: 'enhanced' }, [2, 5]],
    [{ trustLevel: 'basic' }, [0, 1, 4]],
    [{ deviceLookupEnabled: true }, [3, 4]],
    [{ trusted: true, deviceLookupEnabled: false }, [1, 2, 5]],
    [{ trusted: false, trustLevel: 'premium' }, []],
  ])('filters %o', async (query, expected) => {
    const r = await list(query);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(expected.length);
    expect(r.body.data.map((d: any) => d.entityId)).toEqual(expected.map((i) => ms[i]!.id));
  });

  it('pages with limit and offset', async () => {
    const a = await list({ limit: 4 });
    const b = await list({ limit: 4, offset: 4 });
    const c = await list({ trusted: true, limit: 2, offset: 1 });
    expect([a.body.total, b.body.total, c.body.total]).toEqual([6, 6, 4]);
    expect([...a.body.data, ...b.body.data].map((d: any) => d.entityId)).toEqual(ms.map((m) => m.id));
    expect(c.body.data.map((d: any) => d.entityId)).toEqual([ms[2]!.id, ms[3]!.id]);
    expect((await list({ offset: 50 })).body).toMatchObject({ data: [], total: 6 });
  });

  it("lists only the caller's merchants", async () => {
    const other = await newProvider();
    const [om] = await newMerchants(other.apiKey);
    const r = await list({}, other.apiKey);
    expect(r.body.total).toBe(1);
    expect(r.body.data.map((d: any) => d.entityId)).toEqual([om!.id]);
  });

  it.each([
    [{ trustLevel: 'gold' }, 'Invalid trust level specified'],
    [{ trustLevel: 'gold', limit: 500 }, 'Invalid trust level specified'],
    [{ trustLevel: '' }, 'Invalid trust level specified'],
    [{ limit: 101 }, 'Invalid query parameters'],
    [{ limit: 0 }, 'Invalid query parameters'],
    [{ offset: 'x' }, 'Invalid query parameters'],
    [{ trusted: 'maybe' }, 'Invalid query parameters'],
    [{ deviceLookupEnabled: '1' }, 'Invalid query parameters'],
  ])('400 for %o', async (query, message) => {
    const r = await list(query as any);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ statusCode: 400, success: false, message });
  });
});

describe('GET /v1/provider/merchant/trust/device-permission', () => {
  let p: { id: string; apiKey: string };
  beforeAll(async () => {
    p = await newProvider();
    await setMax(p.id, 'premium');
  });

  const permission = (entityId: string) =>
    t.call('GET', '/v1/provider/merchant/trust/device-permission', { key: p.apiKey, query: { entityId } });

  it.each([
    ['a new merchant', null, false],
    ['trusted basic', { trusted: true }, false],
    ['untrusted premium', { trusted: false, trustLevel: 'premium' }, false],
    ['trusted enhanced', { trusted: true, trustLevel: 'enhanced' }, true],
    ['trusted premium', { trusted: true, trustLevel: 'premium' }, true],
    ['untrusted with device lookup enabled', { trusted: false, deviceLookupEnabled: true }, true],
  ])('%s -> allowed %s, with a reason, the trustStatus and no success field', async (_, trust, allowed) => {
    const [m] = await newMerchants(p.apiKey);
    if (trust) expect((await patchTrust(p.apiKey, { entityId: m!.id, ...trust })).status).toBe(200);
    const status = (await getTrust(p.apiKey, m!.id)).body.data;
    const r = await permission(m!.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      statusCode: 200,
      allowed,
      reason: expect.stringMatching(/^[A-Z].{10,}/),
      trustStatus: {
        trusted: status.trusted,
        trustLevel: status.trustLevel,
        deviceLookupEnabled: status.deviceLookupEnabled,
        lastVerified: status.lastVerified,
      },
    });
    expect(r.body).not.toHaveProperty('success');
  });

  it('follows a trust change at once', async () => {
    const [m] = await newMerchants(p.apiKey);
    expect((await permission(m!.id)).body.allowed).toBe(false);
    await patchTrust(p.apiKey, { entityId: m!.id, trusted: false, deviceLookupEnabled: true });
    expect((await permission(m!.id)).body.allowed).toBe(true);
    await patchTrust(p.apiKey, { entityId: m!.id, trusted: false, deviceLookupEnabled: false });
    expect((await permission(m!.id)).body.allowed).toBe(false);
  });

  it('400 Invalid query parameters without entityId; 404 Merchant not found for an unknown one', async () => {
    const a = await t.call('GET', '/v1/provider/merchant/trust/device-permission', { key: p.apiKey });
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ success: false, message: 'Invalid query parameters' });
    const b = await permission('mer_unknown');
    expect(b.status).toBe(404);
    expect(b.body).toMatchObject({ success: false, message: 'Merchant not found' });
  });
});

describe('POST /v1/provider/merchant/trust/validate', () => {
  let p: { id: string; apiKey: string };
  beforeAll(async () => {
    p = await newProvider();
  });
  const validate = (body: Record<string, unknown>) => t.call('POST', '/v1/provider/merchant/trust/validate', { key: p.apiKey, body });

  it('compares basic < enhanced < premium for a trusted merchant', async () => {
    const [m] = await newMerchants(p.apiKey);
    await patchTrust(p.apiKey, { entityId: m!.id, trusted: true, trustLevel: 'enhanced' });
    for (const [required, valid] of [
      ['basic', true],
      ['enhanced', true],
      ['premium', false],
    ] as const) {
      const r = await validate({ entityId: m!.id, requiredTrustLevel: required });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
      expect(r.body.data).toMatchObject({ currentTrustLevel: 'enhanced', valid });
    }
  });

  it('an untrusted merchant is valid for no level, not even its own', async () => {
    const [m] = await newMerchants(p.apiKey);
    for (const required of ['basic', 'enhanced', 'premium']) {
      const r = await validate({ entityId: m!.id, requiredTrustLevel: required });
      expect(r.body.data).toMatchObject({ currentTrustLevel: 'basic', valid: false, trusted: false });
    }
    await patchTrust(p.apiKey, { entityId: m!.id, trusted: true });
    expect((await validate({ entityId: m!.id, requiredTrustLevel: 'basic' })).body.data.valid).toBe(true);
  });

  it.each([
    ['requiredTrustLevel gold', { requiredTrustLevel: 'gold' }, 400, 'Invalid trust level specified'],
    ['requiredTrustLevel missing', {}, 400, 'Invalid trust level specified'],
    ['unknown field', { requiredTrustLevel: 'basic', extra: true }, 400, 'Invalid request parameters'],
  ])('%s -> %i %s', async (_, body, status, message) => {
    const [m] = await newMerchants(p.apiKey);
    const r = await validate({ entityId: m!.id, ...body });
    expect(r.status).toBe(status);
    expect(r.body.message).toBe(message);
  });

  it('400 Invalid request parameters without entityId; 404 Merchant not found for an unknown one', async () => {
    const a = await validate({ requiredTrustLevel: 'basic' });
    expect(a.status).toBe(400);
    expect(a.body.message).toBe('Invalid request parameters');
    const b = await validate({ entityId: 'mer_unknown', requiredTrustLevel: 'basic' });
    expect(b.status).toBe(404);
    expect(b.body.message).toBe('Merchant not found');
  });

  it('writes nothing to the merchant', async () => {
    const [m] = await newMerchants(p.apiKey);
    const before = await getItem(participantKey(m!.id));
    await validate({ entityId: m!.id, requiredTrustLevel: 'premium' });
    expect(await getItem(participantKey(m!.id))).toEqual(before);
  });
});
