import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../functions/platform/clients';
import { deviceKey } from '../../functions/customers/store';
import { resolveLookupPhrase, resolveLookupPhrase as resolveViaCustomers } from '../../functions/customers/phrase-store';
import { getItem, table } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';
import { sleep } from '../../functions/platform/retry';

type Party = { id: string; apiKey: string; name: string; email: string };

let t: TestApp;
let bankA: Party;
let bankB: Party;
let provider: Party;
let merchant: Party; // the provider's merchant
let plainMerchant: Party; // operator-created, no provider

beforeAll(async () => {
  t = await startTestApp();
  [bankA, bankB, provider, plainMerchant] = await Promise.all([
    t.participant('bank'),
    t.participant('bank'),
    t.participant('provider'),
    t.participant('merchant'),
  ]);
  merchant = await t.participant('merchant', { providerId: provider.id });
});
afterAll(async () => t?.stop());

let seq = 0;
const tag = () => `${Date.now().toString(36)}${++seq}`;
function record(over: Record<string, unknown> = {}) {
  const x = tag();
  return {
    clientRef: `CR-${x}`,
    firstname: 'Chidi',
    middlename: 'Emeka',
    lastname: 'Okafor',
    accountName: 'Chidi Emeka Okafor',
    email: `chidi.${x}@example.com`,
    country: 'NG',
    accountNumber: '0011223344',
    reference: `REF-${x}`,
    address: '12 Marina Road, Lagos',
    gender: 'male',
    phone: '+234 803 555 0101',
    ...over,
  };
}

/** Onboards one customer at the bank and returns its id. */
async function onboard(bank: Party, over: Record<string, unknown> = {}) {
  const rec = record(over);
  const r = await t.call('POST', '/v1/bank/customers', { key: bank.apiKey, body: { customers: [rec] } });
  expect(r.body.data.summary.successful).toBe(1);
  return { id: r.body.data.data.customerIds[0] as string, rec };
}

const link = (bank: Party, body: Record<string, unknown>) => t.call('POST', '/v1/bank/customer/device/link', { key: bank.apiKey, body });
const deviceLookup = (key: string, deviceId: unknown, headers?: Record<string, string>) =>
  t.call('POST', '/v1/customer/device/lookup', { key, body: { deviceId }, headers });
const emailLookup = (key: string, email?: string, headers?: Record<string, string>) =>
  t.call('GET', '/v1/customer/banks', { key, query: email === undefined ? {} : { email }, headers });
const patchTrust = (body: Record<string, unknown>) => t.call('PATCH', '/v1/provider/merchant/trust', { key: provider.apiKey, body });

/** Personal data of a record must never appear in a merchant-facing body. */
function expectNoPersonalData(body: unknown, rec: Record<string, unknown>) {
  const text = JSON.stringify(body);
  for (const field of [
    'firstname',
    'middlename',
    'lastname',
    'accountName',
    'accountNumber',
    'address',
    'phone',
    'clientRef',
    'reference',
  ]) {
    expect(text).not.toContain(String(rec[field]));
  }
  expect(text).not.toMatch(/accountNumber|firstname|lastname|phone/);
}

async function scanPrefix(prefix: string) {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: table(), ExclusiveStartKey: start, ConsistentRead: true }));
    for (const it of page.Items ?? []) if (String(it.pk).startsWith(prefix)) out.push(it);
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

describe('POST /v1/bank/customer/device/link', () => {
  it("links a device to the bank's own customer and stores the phrase only as a hash", async () => {
    const { id } = await onboard(bankA);
    const deviceId = `dev-${tag()}`;
    const r = await link(bankA, { customerId: id, phrase: 'blue heron at dawn', deviceId });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true });
    expect(r.body.data).toEqual({ customerId: id, deviceId, linkedAt: expect.any(String) });
    expect(new Date(r.body.data.linkedAt).toISOString()).toBe(r.body.data.linkedAt);
    const stored = await getItem(deviceKey(deviceId));
    expect(stored).toMatchObject({ customerId: id, bankId: bankA.id, phraseHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(stored)).not.toContain('blue heron');
    expect(JSON.stringify(r.body)).not.toContain('blue heron');
  });

  it("is 404 Customer not found for another bank's customer and for an unknown one, and writes nothing", async () => {
    const { id } = await onboard(bankA);
    const deviceId = `dev-${tag()}`;
    const foreign = await link(bankB, { customerId: id, phrase: 'p', deviceId });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer not found' });
    const unknown = await link(bankB, { customerId: 'cus_unknown', phrase: 'p', deviceId });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Customer not found');
    expect(await getItem(deviceKey(deviceId))).toBeUndefined();
  });

  it('is idempotent for the same customer, moves within the bank, and refuses a device of another bank', async () => {
    const c1 = await onboard(bankA);
    const c2 = await onboard(bankA);
    const cb = await onboard(bankB);
    const deviceId = `dev-${tag()}`;
    const first = await link(bankA, { customerId: c1.id, phrase: 'one', deviceId });
    const again = await link(bankA, { customerId: c1.id, phrase: 'one', deviceId });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);

    const taken = await link(bankB, { customerId: cb.id, phrase: 'mine now', deviceId });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ statusCode: 409, success: false, message: 'Device is already linked to another customer' });
    expect(await getItem(deviceKey(deviceId))).toMatchObject({ customerId: c1.id, bankId: bankA.id });

    const moved = await link(bankA, { customerId: c2.id, phrase: 'two', deviceId });
    expect(moved.status).toBe(200);
    expect(moved.body.data.customerId).toBe(c2.id);
    expect(await getItem(deviceKey(deviceId))).toMatchObject({ customerId: c2.id, bankId: bankA.id });
  });

  it('links a new device to exactly one bank when two banks race for it', async () => {
    const a = await onboard(bankA);
    const b = await onboard(bankB);
    const deviceId = `dev-${tag()}`;
    const [ra, rb] = await Promise.all([
      link(bankA, { customerId: a.id, phrase: 'a', deviceId }),
      link(bankB, { customerId: b.id, phrase: 'b', deviceId }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const winner = ra.status === 200 ? a.id : b.id;
    expect(await getItem(deviceKey(deviceId))).toMatchObject({ customerId: winner });
  });

  const bad: [string, unknown][] = [
    ['no body', undefined],
    ['a missing phrase', { customerId: 'cus_x', deviceId: 'd' }],
    ['a blank phrase', { customerId: 'cus_x', deviceId: 'd', phrase: '   ' }],
    ['a missing deviceId', { customerId: 'cus_x', phrase: 'p' }],
    ['an empty customerId', { customerId: '', deviceId: 'd', phrase: 'p' }],
    ['a numeric deviceId', { customerId: 'cus_x', deviceId: 42, phrase: 'p' }],
    ['an unknown field', { customerId: 'cus_x', deviceId: 'd', phrase: 'p', label: 'x' }],
  ];
  for (const [name, body] of bad) {
    it(`rejects ${name} with 400 Invalid request parameters and writes nothing`, async () => {
      const before = (await scanPrefix('DEVICE#')).length;
      const r = await t.call('POST', '/v1/bank/customer/device/link', { key: bankA.apiKey, body });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
      expect((await scanPrefix('DEVICE#')).length).toBe(before);
    });
  }

  it('refuses merchants', async () => {
    const r = await link(plainMerchant as Party, { customerId: 'cus_x', deviceId: 'd', phrase: 'p' });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Forbidden for this participant type');
  });
});

describe('POST /v1/customer/device/lookup', () => {
  it('is 403 without permission (before any lookup), 200 once the provider grants it, 403 again once revoked', async () => {
    const { id, rec } = await onboard(bankA);
    const deviceId = `dev-${tag()}`;
    expect((await link(bankA, { customerId: id, phrase: 'p', deviceId })).status).toBe(200);
    const h = { 'X-Entity-Id': merchant.id };

    // New merchants: untrusted, basic, no device lookup.
    for (const d of [deviceId, 'dev-that-does-not-exist']) {
      const denied = await deviceLookup(merchant.apiKey, d);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ statusCode: 403, success: false, message: 'Device lookup not permitted for this merchant' });
    }
    // Trusted basic is still not enough.
    expect((await patchTrust({ entityId: merchant.id, trusted: true, trustLevel: 'basic' })).status).toBe(200);
    expect((await deviceLookup(merchant.apiKey, deviceId)).status).toBe(403);

    // deviceLookupEnabled grants it at once.
    expect((await patchTrust({ entityId: merchant.id, trusted: false, deviceLookupEnabled: true })).status).toBe(200);
    const ok = await deviceLookup(merchant.apiKey, deviceId);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ statusCode: 200, success: true });
    expect(Object.keys(ok.body.data)).toEqual(['lookupPhrase']);
    expect(ok.body.data.lookupPhrase).toMatch(/^lp_[0-9A-Za-z]{32}$/);
    expectNoPersonalData(ok.body, rec);

    // The provider acting for its merchant gets the same phrase (issued to that merchant).
    const viaProvider = await deviceLookup(provider.apiKey, deviceId, h);
    expect(viaProvider.status).toBe(200);
    expect(viaProvider.body.data.lookupPhrase).toBe(ok.body.data.lookupPhrase);

    // Unknown device with permission: 404.
    const unknown = await deviceLookup(merchant.apiKey, 'dev-that-does-not-exist');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer not found' });

    // Revoked: refused at once.
    expect((await patchTrust({ entityId: merchant.id, trusted: false, deviceLookupEnabled: false })).status).toBe(200);
    expect((await deviceLookup(merchant.apiKey, deviceId)).status).toBe(403);

    // Trusted enhanced grants it without the flag.
    expect((await patchTrust({ entityId: merchant.id, trusted: true, trustLevel: 'enhanced', deviceLookupEnabled: false })).status).toBe(
      200,
    );
    const enhanced = await deviceLookup(merchant.apiKey, deviceId);
    expect(enhanced.status).toBe(200);
    expect(enhanced.body.data.lookupPhrase).toBe(ok.body.data.lookupPhrase);
  });

  it('returns the same phrase on repeated lookups without growing the table', async () => {
    await patchTrust({ entityId: merchant.id, trusted: false, deviceLookupEnabled: true });
    const { id } = await onboard(bankA);
    const deviceId = `dev-${tag()}`;
    await link(bankA, { customerId: id, phrase: 'p', deviceId });
    const phrases = await Promise.all(Array.from({ length: 5 }, () => deviceLookup(merchant.apiKey, deviceId)));
    const values = new Set(phrases.map((r) => r.body.data.lookupPhrase));
    expect(values.size).toBe(1);
    const items = (await scanPrefix('LPHRASE#')).filter((i) => i.customerId === id);
    expect(items).toHaveLength(1);
  });

  it('finds the new customer after a device moves within the bank', async () => {
    await patchTrust({ entityId: merchant.id, trusted: false, deviceLookupEnabled: true });
    const c1 = await onboard(bankA);
    const c2 = await onboard(bankA);
    const deviceId = `dev-${tag()}`;
    await link(bankA, { customerId: c1.id, phrase: 'p', deviceId });
    const p1 = (await deviceLookup(merchant.apiKey, deviceId)).body.data.lookupPhrase;
    await link(bankA, { customerId: c2.id, phrase: 'p', deviceId });
    const p2 = (await deviceLookup(merchant.apiKey, deviceId)).body.data.lookupPhrase;
    expect(p2).not.toBe(p1);
    expect((await resolveLookupPhrase(p2, merchant.id))?.customer.id).toBe(c2.id);
  });

  it('rejects a bad body with 400 Invalid request parameters', async () => {
    await patchTrust({ entityId: merchant.id, trusted: false, deviceLookupEnabled: true });
    for (const body of [{}, { deviceId: '' }, { deviceId: 7 }, { deviceId: 'd', extra: 1 }]) {
      const r = await t.call('POST', '/v1/customer/device/lookup', { key: merchant.apiKey, body });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
  });

  it('refuses banks, and a provider without X-Entity-Id', async () => {
    expect((await deviceLookup(bankA.apiKey, 'd')).status).toBe(403);
    const r = await deviceLookup(provider.apiKey, 'd');
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('X-Entity-Id header is required when a provider calls a merchant endpoint');
  });
});

describe('GET /v1/customer/banks', () => {
  it('lists every bank that onboarded the email, case-insensitively, with phrases and no personal data', async () => {
    const email = `Shared.${tag()}@Example.COM`;
    const a = await onboard(bankA, { email });
    const b = await onboard(bankB, { email: email.toLowerCase() });
    const r = await emailLookup(plainMerchant.apiKey, email.toUpperCase());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true });
    expect(Object.keys(r.body.data)).toEqual(['banks']);
    const banks = r.body.data.banks as { bankId: string; bankName: string; lookupPhrase: string }[];
    expect(banks).toHaveLength(2);
    expect(banks.map((x) => x.bankId)).toEqual([bankA.id, bankB.id]);
    expect(banks.map((x) => x.bankName)).toEqual([bankA.name, bankB.name]);
    for (const x of banks) {
      expect(Object.keys(x).sort()).toEqual(['bankId', 'bankName', 'lookupPhrase']);
      expect(x.lookupPhrase).toMatch(/^lp_[0-9A-Za-z]{32}$/);
    }
    expect(banks[0]!.lookupPhrase).not.toBe(banks[1]!.lookupPhrase);
    expectNoPersonalData(r.body, a.rec);
    expectNoPersonalData(r.body, b.rec);

    // Each phrase names that bank's customer, for this merchant only.
    const ra = await resolveLookupPhrase(banks[0]!.lookupPhrase, plainMerchant.id);
    expect(ra).toMatchObject({ bankId: bankA.id, customer: { id: a.id, bankId: bankA.id } });
    const rb = await resolveLookupPhrase(banks[1]!.lookupPhrase, plainMerchant.id);
    expect(rb).toMatchObject({ bankId: bankB.id, customer: { id: b.id } });

    // Repeated lookups give the same phrases.
    const again = await emailLookup(plainMerchant.apiKey, email.toLowerCase());
    expect(again.body.data.banks).toEqual(banks);
  });

  it('issues different phrases to different merchants; a phrase resolves only for its own merchant', async () => {
    const { id } = await onboard(bankA);
    const email = (await getItem<{ email: string }>({ pk: `CUS#${id}`, sk: 'PROFILE' }))!.email;
    const mine = (await emailLookup(plainMerchant.apiKey, email)).body.data.banks[0].lookupPhrase as string;
    const theirs = (await emailLookup(provider.apiKey, email, { 'X-Entity-Id': merchant.id })).body.data.banks[0].lookupPhrase as string;
    expect(mine).not.toBe(theirs);
    expect((await resolveLookupPhrase(mine, plainMerchant.id))?.customer.id).toBe(id);
    expect((await resolveLookupPhrase(theirs, merchant.id))?.customer.id).toBe(id);
    expect(await resolveLookupPhrase(mine, merchant.id)).toBeUndefined();
    expect(await resolveLookupPhrase(theirs, plainMerchant.id)).toBeUndefined();
    expect(await resolveLookupPhrase(`lp_${'A'.repeat(32)}`, plainMerchant.id)).toBeUndefined();
    expect(await resolveLookupPhrase('not a phrase', plainMerchant.id)).toBeUndefined();
    expect(await resolveLookupPhrase(undefined, plainMerchant.id)).toBeUndefined();
    // (Once also re-exported from the customers store; that re-export made an import cycle.)
    expect((await resolveViaCustomers(mine, plainMerchant.id))?.customer.id).toBe(id);
  });

  it('finds a customer within 5 s of the batch answer', async () => {
    const email = `fresh.${tag()}@example.com`;
    const post = await t.call('POST', '/v1/bank/customers', { key: bankA.apiKey, body: { customers: [record({ email })] } });
    const answeredAt = Date.now();
    expect(post.body.data.status).toBe('COMPLETED');
    let r = await emailLookup(plainMerchant.apiKey, email);
    while (r.status === 404 && Date.now() - answeredAt < 5000) {
      await sleep(100);
      r = await emailLookup(plainMerchant.apiKey, email);
    }
    expect(r.status).toBe(200);
    expect(Date.now() - answeredAt).toBeLessThan(5000);
  });

  it('is 404 Customer not found for an unknown email', async () => {
    const r = await emailLookup(plainMerchant.apiKey, `nobody.${tag()}@example.com`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer not found' });
  });

  it('is 400 Invalid query parameters for a missing, empty or invalid email, and writes no phrase', async () => {
    const before = (await scanPrefix('LPHRASE#')).length;
    for (const email of [undefined, '', 'not-an-email', 'a@', `${'x'.repeat(250)}@example.com`]) {
      const r = await emailLookup(plainMerchant.apiKey, email);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid query parameters' });
    }
    expect((await scanPrefix('LPHRASE#')).length).toBe(before);
  });

  it('refuses banks', async () => {
    const r = await emailLookup(bankA.apiKey, 'a@example.com');
    expect(r.status).toBe(403);
  });
});

describe('discovery budgets (DESIGN 10.5)', () => {
  const LIMITED = 'Discovery limit reached';
  const clockAt = async (m: Party, frozenTime: string) => {
    const r = await t.call('POST', '/v1/sandbox/test-clocks', { key: m.apiKey, body: { frozenTime } });
    expect(r.status).toBe(201);
    return { 'X-Test-Clock': r.body.data.clockId as string };
  };
  const eventsOf = async (key: string) => {
    await t.app.settle(); // the events API lists what the stream consumer has fanned out
    const r = await t.call('GET', '/v1/events', { key, query: { type: 'merchant.discovery_limited', limit: '100' } });
    expect(r.status).toBe(200);
    return r.body.data.events as { type: string; data: Record<string, unknown> }[];
  };
  const expectLimited = (r: { status: number; headers: Headers; body: any }, retryAfter: number) => {
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ statusCode: 429, success: false, message: LIMITED, code: 'discovery_limit' });
    expect(r.headers.get('retry-after')).toBe(String(retryAfter));
  };

  it("a provider's limits apply to look-ups and misses across both look-ups; 429 until the next Lagos day; the event once per merchant-day, the audit entry in both logs", async () => {
    const m = await t.participant('merchant', { providerId: provider.id });
    const known = (await onboard(bankA)).rec.email;
    const deviceId = `dev-${tag()}`;
    expect((await link(bankA, { customerId: (await onboard(bankA)).id, phrase: 'p', deviceId })).status).toBe(200);

    // The defaults until the provider sets them; bad values are 400 and change nothing.
    const trust = () => t.call('GET', '/v1/provider/merchant/trust', { key: provider.apiKey, query: { entityId: m.id } });
    expect((await trust()).body.data).toMatchObject({ discoveryDailyLimit: 1000, discoveryMissLimit: 100 });
    for (const bad of [0, 100_001, 2.5, '5']) {
      const r = await patchTrust({ entityId: m.id, trusted: false, discoveryMissLimit: bad });
      expect(r.status, String(bad)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    const set = await patchTrust({
      entityId: m.id,
      trusted: false,
      deviceLookupEnabled: true,
      discoveryDailyLimit: 4,
      discoveryMissLimit: 2,
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ discoveryDailyLimit: 4, discoveryMissLimit: 2 });
    expect((await trust()).body.data).toMatchObject({ deviceLookupEnabled: true, discoveryDailyLimit: 4, discoveryMissLimit: 2 });

    // Day 1 (10:00 Lagos): two misses (one by e-mail, one by device) use the miss limit.
    const day1 = await clockAt(m, '2031-03-10T10:00:00+01:00');
    expect((await emailLookup(m.apiKey, `nobody.${tag()}@example.com`, day1)).status).toBe(404);
    expect((await deviceLookup(m.apiKey, `dev-nobody-${tag()}`, day1)).status).toBe(404);
    // Over it: refused whatever the look-up would find, by either look-up, 14 h before Lagos midnight.
    expectLimited(await emailLookup(m.apiKey, known, day1), 14 * 3600);
    expectLimited(await deviceLookup(m.apiKey, deviceId, day1), 14 * 3600);
    // The provider acting for its merchant shares the merchant's budget.
    expectLimited(await emailLookup(provider.apiKey, known, { ...day1, 'X-Entity-Id': m.id }), 14 * 3600);

    // Day 2 (00:00 Lagos): served again; four look-ups use the daily limit, the fifth is refused.
    const day2 = await clockAt(m, '2031-03-11T00:00:00+01:00');
    for (let i = 0; i < 4; i++) expect((await emailLookup(m.apiKey, known, day2)).status).toBe(200);
    expectLimited(await deviceLookup(m.apiKey, deviceId, day2), 24 * 3600);

    // One event per merchant-day, to the merchant and its provider; the audit entry in both logs.
    const events = await eventsOf(provider.apiKey);
    const mine = events.filter((e) => e.data.entityId === m.id);
    expect(mine.map((e) => [e.data.day, e.data.limit])).toEqual([
      ['2031-03-11', 'lookups'],
      ['2031-03-10', 'misses'],
    ]);
    expect(mine[1]!.data).toEqual({
      entityId: m.id,
      limit: 'misses',
      day: '2031-03-10',
      lookups: 2,
      misses: 2,
      discoveryDailyLimit: 4,
      discoveryMissLimit: 2,
      resetsAt: '2031-03-10T23:00:00.000Z',
      testClock: expect.any(String),
    });
    expect((await eventsOf(m.apiKey)).filter((e) => e.data.entityId === m.id)).toHaveLength(2);
    for (const key of [provider.apiKey, m.apiKey]) {
      const log = await t.call('GET', '/v1/audit-log', { key, query: { limit: '100' } });
      expect(log.status).toBe(200);
      const entries = (log.body.data.entries as { action: string; target: string }[]).filter(
        (e) => e.action === 'merchant.discovery_limited' && e.target === m.id,
      );
      expect(entries).toHaveLength(2);
    }

    // null returns a limit to the deployment's default (served again the same day); an omitted one is kept.
    const reset = await patchTrust({ entityId: m.id, trusted: false, discoveryDailyLimit: null });
    expect(reset.status).toBe(200);
    expect((await trust()).body.data).toMatchObject({ discoveryDailyLimit: 1000, discoveryMissLimit: 2 });
    expect((await emailLookup(m.apiKey, known, day2)).status).toBe(200);
  });

  it(`the sandbox's magic e-mail answers as a merchant over its budget, sends the event every time, and uses nothing of the budget`, async () => {
    const m = await t.participant('merchant');
    const at = await clockAt(m, '2031-03-10T23:30:00+01:00');
    for (let i = 0; i < 2; i++) expectLimited(await emailLookup(m.apiKey, 'discovery.limited@sandbox.idpay.test', at), 30 * 60);
    expect((await eventsOf(m.apiKey)).map((e) => e.data.limit)).toEqual(['misses', 'misses']);
    expect((await emailLookup(m.apiKey, `nobody.${tag()}@example.com`, at)).status).toBe(404);
  });
});
