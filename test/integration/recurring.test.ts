/**
 * Recurring schedules API: create (every refusal in DESIGN 6.9's precedence with
 * its exact message; nothing written), pause / resume / cancel (states, 409s, events in the
 * same transaction), reads (every spec field, filters, paging, total), 404 for unknown and
 * foreign ids, providers acting for a merchant, idempotent create, and the bank's
 * subscriptions list. Real local stack, decisions through the real agreement flow.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, events, receivedEvents, type Agreement } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { createSchedule, newSchedule, recurringAgreement, scheduleBody, stored } from '../support/recurring-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const INVALID = 'Invalid request parameters';
const TRUST = 'Merchant trust level does not allow recurring billing';
const BLOCKED = 'Merchant is blocked by the customer';
const PERMISSION = 'Customer must have approve_recurring permission';
const LIMITS = "Billing exceeds the customer's spending limits";
const NOT_FOUND = 'Recurring schedule not found';
const NOT_ACTIVE = 'Recurring schedule is not active';
const NOT_PAUSED = 'Recurring schedule is not paused';

const list = (a: Pick<Agreement, 'merchant'>, query: Record<string, string | number> = {}) =>
  t.call('GET', '/v1/recurring', { key: a.merchant.apiKey, query });

async function expectError(r: { status: number; body: any }, status: number, message: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ statusCode: status, success: false, message });
}

describe('create', () => {
  let a: Agreement;
  beforeAll(async () => {
    a = await recurringAgreement(t, { receiver: rx, limits: { single: 5000, monthly: 20000 } });
  });

  it('201 with the spec fields; the first nextBillingDate is startDate; schedule.created to merchant and provider', async () => {
    const r = await createSchedule(t, a, {
      amount: 1500.5,
      frequency: 'monthly',
      interval: 2,
      startDate: '2027-03-31T10:00:00+01:00',
      maxBillings: 12,
      metadata: { plan: 'gold', seats: 3 },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ statusCode: 201, success: true, message: expect.any(String) });
    const d = r.body.data;
    expect(d).toEqual({
      scheduleId: expect.stringMatching(/^sch_/),
      customerId: a.customerId,
      amount: 1500.5,
      frequency: 'monthly',
      status: 'active',
      nextBillingDate: '2027-03-31T09:00:00.000Z',
    });

    const s = await stored(d.scheduleId);
    expect(s).toMatchObject({
      amount: 150050,
      interval: 2,
      seq: 1,
      occurrence: 0,
      anchor: '2027-03-31T09:00:00.000Z',
      merchantId: a.merchant.id,
      bankId: a.bank.id,
      decisionId: a.decisionId,
      status: 'active',
    });
    // Due first for the bank's pre-debit notice, 24 h before the first run (DESIGN 8.5).
    expect(s.dueSk).toBe(`2027-03-30T09:00:00.000Z#recurring.run#${d.scheduleId}`);

    for (const hook of [a.hooks!.merchant, a.hooks!.provider!]) {
      const [ev] = await events(rx, hook, 'schedule.created', 1, (e) => e.data.scheduleId === d.scheduleId);
      expect(ev!.data).toMatchObject({
        scheduleId: d.scheduleId,
        entityId: a.merchant.id,
        customerId: a.customerId,
        amount: 1500.5,
        currency: 'NGN',
        frequency: 'monthly',
        interval: 2,
        status: 'active',
        nextBillingDate: '2027-03-31T09:00:00.000Z',
        totalBillings: 0,
        maxBillings: 12,
        failedAttempts: 0,
      });
    }
    // The bank is not told about schedules (it sees each run's billing.request).
    expect(receivedEvents(rx, a.hooks!.bank, 'schedule.created')).toHaveLength(0);
  });

  it('interval defaults to 1; description, endDate, maxBillings and metadata are optional', async () => {
    const r = await t.call('POST', '/v1/billing/recurring/create', {
      key: a.merchant.apiKey,
      body: {
        customerId: a.customerId,
        agreementPhrase: a.agreementPhrase,
        amount: 1,
        currency: 'NGN',
        frequency: 'yearly',
        startDate: '2028-02-29T00:00:00Z',
      },
    });
    expect(r.status).toBe(201);
    const g = await t.call('GET', `/v1/recurring/${r.body.data.scheduleId}`, { key: a.merchant.apiKey });
    expect(g.body.data).toMatchObject({ interval: 1, endDate: null, maxBillings: null, description: null, metadata: null });
  });

  it('400 Invalid request parameters for every bad body, writing nothing', async () => {
    const fresh = await recurringAgreement(t);
    const bad: Array<[string, Record<string, unknown>]> = [
      ['frequency missing', { frequency: undefined }],
      ['frequency hourly', { frequency: 'hourly' }],
      ['interval 0', { interval: 0 }],
      ['interval 367', { interval: 367 }],
      ['interval 1.5', { interval: 1.5 }],
      ['interval "2"', { interval: '2' }],
      ['startDate missing', { startDate: undefined }],
      ['startDate date only', { startDate: '2027-01-01' }],
      ['startDate garbage', { startDate: 'tomorrow' }],
      ['startDate no offset', { startDate: '2027-01-01T10:00:00' }],
      ['endDate before startDate', { endDate: '2027-01-30T09:00:00Z' }],
      ['endDate equal to startDate', { endDate: '2027-01-31T09:00:00.000Z' }],
      ['endDate in the past', { startDate: '2020-01-01T00:00:00Z', endDate: '2021-01-01T00:00:00Z' }],
      ['maxBillings 0', { maxBillings: 0 }],
      ['maxBillings 2.5', { maxBillings: 2.5 }],
      ['maxBillings "3"', { maxBillings: '3' }],
      ['amount 0.99', { amount: 0.99 }],
      ['amount 3 decimals', { amount: 10.005 }],
      ['amount string', { amount: '10.00' }],
      ['amount negative', { amount: -5 }],
      ['amount missing', { amount: undefined }],
      ['currency lower case', { currency: 'ngn' }],
      ['currency 2 letters', { currency: 'NG' }],
      ['currency missing', { currency: undefined }],
      ['customerId missing', { customerId: undefined }],
      ['customerId empty', { customerId: '' }],
      ['agreementPhrase missing', { agreementPhrase: undefined }],
      ['agreementPhrase empty', { agreementPhrase: '' }],
      ['description empty', { description: '' }],
      ['metadata array', { metadata: ['a'] }],
      ['metadata string', { metadata: 'x' }],
      ['metadata too many keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
      ['metadata too large', { metadata: { blob: 'x'.repeat(5000) } }],
      ['unknown field', { spendingLimit: 10 }],
    ];
    for (const [label, over] of bad) {
      const r = await createSchedule(t, fresh, over);
      expect(r.status, `${label}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.message, label).toBe(INVALID);
      expect(r.body.errors?.length, label).toBeGreaterThan(0);
    }
    const usd = await createSchedule(t, fresh, { currency: 'USD' });
    await expectError(usd, 400, 'Unsupported currency');
    const json = await t.call('POST', '/v1/billing/recurring/create', { key: fresh.merchant.apiKey, rawBody: '{"customerId": ' });
    await expectError(json, 400, 'Invalid JSON body');
    expect((await list(fresh)).body.data.total).toBe(0);
  });

  it('400 comes before the trust check; 403 trust for a merchant that is not trusted premium (even with a garbage phrase)', async () => {
    const enhanced = await agreement(t, { decision: 'approve_recurring', trustLevel: 'enhanced', withProvider: true });
    await expectError(await createSchedule(t, enhanced, { interval: 0 }), 400, INVALID);
    await expectError(await createSchedule(t, enhanced), 403, TRUST);
    await expectError(await createSchedule(t, enhanced, { agreementPhrase: 'ap_garbage' }), 403, TRUST);
    const basic = await t.participant('merchant');
    await expectError(
      await t.call('POST', '/v1/billing/recurring/create', {
        key: basic.apiKey,
        body: scheduleBody({ customerId: 'cus_x', agreementPhrase: 'ap_x' }),
      }),
      403,
      TRUST,
    );
    expect((await list(enhanced)).body.data.total).toBe(0);
  });

  it('403 blocked before the permission checks (also when the customerId does not match)', async () => {
    const b = await recurringAgreement(t, { blockMerchant: true });
    await expectError(await createSchedule(t, b), 403, BLOCKED);
    await expectError(await createSchedule(t, b, { customerId: 'cus_someone_else' }), 403, BLOCKED);
    expect((await list(b)).body.data.total).toBe(0);
  });

  it('400 permission: approve_once decision, tampered / unknown / foreign phrase, customerId not the phrase customer, deny, suspended', async () => {
    const once = await recurringAgreement(t, { decision: 'approve_once' });
    await expectError(await createSchedule(t, once), 400, PERMISSION);

    const tampered = a.agreementPhrase.slice(0, -2) + (a.agreementPhrase.endsWith('AA') ? 'BB' : 'AA');
    await expectError(await createSchedule(t, a, { agreementPhrase: tampered }), 400, PERMISSION);
    await expectError(await createSchedule(t, a, { agreementPhrase: 'not-a-phrase' }), 400, PERMISSION);

    // Another merchant's phrase (another premium merchant with its own customer).
    const other = await recurringAgreement(t);
    await expectError(
      await createSchedule(t, a, { agreementPhrase: other.agreementPhrase, customerId: other.customerId }),
      400,
      PERMISSION,
    );

    // The merchant's own phrase, but another customer's id.
    await expectError(await createSchedule(t, a, { customerId: other.customerId }), 400, PERMISSION);

    for (const decision of ['deny', 'suspended'] as const) {
      const d = await recurringAgreement(t, { decision });
      const r = await t.call('GET', `/v1/customer-decisions/${d.decisionId}`, { key: d.merchant.apiKey });
      await expectError(await createSchedule(t, d, { agreementPhrase: r.body.data.agreementPhrase }), 400, PERMISSION);
    }
    expect((await list(once)).body.data.total).toBe(0);
  });

  it("403 above the decision's single limit (equal is fine); period limits are checked per run, not here", async () => {
    const l = await recurringAgreement(t, { limits: { single: 50, daily: 10 } });
    await expectError(await createSchedule(t, l, { amount: 50.01 }), 403, LIMITS);
    expect((await list(l)).body.data.total).toBe(0);
    expect((await createSchedule(t, l, { amount: 50 })).status).toBe(201);
  });

  it('a provider creates for its merchant with X-Entity-Id; Idempotency-Key replays the first response', async () => {
    const h = { 'X-Entity-Id': a.merchant.id };
    const r = await t.call('POST', '/v1/billing/recurring/create', {
      key: a.provider!.apiKey,
      headers: h,
      body: scheduleBody(a, { amount: 7 }),
    });
    expect(r.status).toBe(201);
    const s = await stored(r.body.data.scheduleId);
    expect(s.merchantId).toBe(a.merchant.id);

    const key = { 'Idempotency-Key': `rec-${Date.now()}` };
    const r1 = await createSchedule(t, a, { amount: 8 }, key);
    const r2 = await createSchedule(t, a, { amount: 8 }, key);
    expect(r1.status).toBe(201);
    expect(r2.status).toBe(201);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(r2.body.data.scheduleId).toBe(r1.body.data.scheduleId);
  });
});

describe('pause, resume, cancel', () => {
  it('active -> paused -> active -> cancelled, with the spec fields, 409s for wrong states and the events', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await newSchedule(t, a, { startDate: '2029-01-15T09:00:00Z' });

    await expectError(await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey }), 409, NOT_PAUSED);

    const p = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { reason: 'holiday' } });
    expect(p.status).toBe(200);
    expect(p.body.data).toEqual({ scheduleId: id, status: 'paused', pausedAt: expect.any(String) });
    expect(Math.abs(Date.parse(p.body.data.pausedAt) - Date.now())).toBeLessThan(10_000);
    await expectError(await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey }), 409, NOT_ACTIVE);
    const [pe] = await events(rx, a.hooks!.merchant, 'schedule.paused', 1, (e) => e.data.scheduleId === id);
    expect(pe!.data).toMatchObject({ status: 'paused', pausedAt: p.body.data.pausedAt, reason: 'holiday', pausedBy: 'merchant' });
    expect((await stored(id)).dueSk).toBeUndefined();

    const r = await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: { reason: 'back' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      scheduleId: id,
      status: 'active',
      resumedAt: expect.any(String),
      nextBillingDate: '2029-01-15T09:00:00.000Z',
    });
    const [re] = await events(rx, a.hooks!.merchant, 'schedule.resumed', 1, (e) => e.data.scheduleId === id);
    // DESIGN 8.5: the resume's reason reaches the event, like the pause's.
    expect(re!.data).toMatchObject({ status: 'active', resumedAt: r.body.data.resumedAt, reason: 'back', actor: 'merchant' });
    // The next run's pre-debit notice (DESIGN 8.5) is due 24 h before it.
    expect((await stored(id)).dueSk).toBe(`2029-01-14T09:00:00.000Z#recurring.run#${id}`);

    const c = await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(c.status).toBe(200);
    expect(c.body.data).toEqual({ scheduleId: id, status: 'cancelled', cancelledAt: expect.any(String) });
    const again = await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(c.body.data);
    await events(rx, a.hooks!.merchant, 'schedule.cancelled', 1, (e) => e.data.scheduleId === id);
    await events(rx, a.hooks!.provider!, 'schedule.cancelled', 1, (e) => e.data.scheduleId === id);
    expect((await stored(id)).dueSk).toBeUndefined();

    await expectError(await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey }), 409, NOT_ACTIVE);
    await expectError(await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey }), 409, NOT_PAUSED);
    const g = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(g.body.data).toMatchObject({ status: 'cancelled', cancelledAt: c.body.data.cancelledAt, nextBillingDate: null });
    // One cancellation event only.
    await sleep(300);
    expect(receivedEvents(rx, a.hooks!.merchant, 'schedule.cancelled').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
  });

  it('a paused schedule can be cancelled; a bad pause body is 400', async () => {
    const a = await recurringAgreement(t);
    const id = await newSchedule(t, a, { startDate: '2029-02-01T09:00:00Z' });
    await expectError(await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { reason: 42 } }), 400, INVALID);
    await expectError(await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { why: 'x' } }), 400, INVALID);
    expect((await stored(id)).status).toBe('active');
    expect((await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey })).status).toBe(200);
    const c = await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(c.body.data.status).toBe('cancelled');
  });

  it('concurrent pauses: exactly one 200, the others 409; one event', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await newSchedule(t, a, { startDate: '2029-03-01T09:00:00Z' });
    const rs = await Promise.all(Array.from({ length: 5 }, () => t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    await events(rx, a.hooks!.merchant, 'schedule.paused', 1, (e) => e.data.scheduleId === id);
    await sleep(300);
    expect(receivedEvents(rx, a.hooks!.merchant, 'schedule.paused').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
  });
});

describe('404 for unknown and foreign schedules', () => {
  it('GET, pause, resume, DELETE', async () => {
    const a = await recurringAgreement(t);
    const b = await recurringAgreement(t);
    const foreign = await newSchedule(t, b, { startDate: '2029-04-01T09:00:00Z' });
    for (const id of [foreign, 'sch_0000000000000000000000', 'nope', 'sch_%2F..']) {
      await expectError(await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey }), 404, NOT_FOUND);
      await expectError(await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey }), 404, NOT_FOUND);
      await expectError(await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey }), 404, NOT_FOUND);
      await expectError(await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey }), 404, NOT_FOUND);
    }
    // The foreign schedule is untouched.
    expect((await stored(foreign)).status).toBe('active');
    // A bank may not use the merchant routes.
    await expectError(await t.call('GET', `/v1/recurring/${foreign}`, { key: b.bank.apiKey }), 403, 'Forbidden for this participant type');
  });
});

describe('reads', () => {
  it('GET returns every field of the spec', async () => {
    const a = await recurringAgreement(t);
    const id = await newSchedule(t, a, {
      amount: 99.99,
      frequency: 'weekly',
      interval: 2,
      startDate: '2029-05-01T09:00:00Z',
      endDate: '2030-05-01T09:00:00Z',
      maxBillings: 10,
      description: 'Box',
      metadata: { sku: 'B1' },
    });
    const r = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      scheduleId: id,
      customerId: a.customerId,
      agreementPhrase: a.agreementPhrase,
      amount: 99.99,
      currency: 'NGN',
      frequency: 'weekly',
      interval: 2,
      status: 'active',
      startDate: '2029-05-01T09:00:00.000Z',
      endDate: '2030-05-01T09:00:00.000Z',
      nextBillingDate: '2029-05-01T09:00:00.000Z',
      totalBillings: 0,
      maxBillings: 10,
      failedAttempts: 0,
      description: 'Box',
      createdAt: expect.any(String),
      metadata: { sku: 'B1' },
      entityId: a.merchant.id,
      // The customer named; no run yet.
      customer: { name: expect.stringMatching(/^Ada Obi\d+$/), email: a.email },
      runs: [],
    });
    // No internals.
    for (const k of ['pk', 'sk', 'gsi2pk', 'duePk', 'dueSk', 'version', 'metadataJson', 'decisionId', 'bankId'])
      expect(r.body.data).not.toHaveProperty(k);
  });

  it('list: newest first, filters (customerId, status), limit/skip, total; bad queries are 400', async () => {
    const a = await recurringAgreement(t);
    const c2 = await recurringAgreement(t, { bank: a.bank, merchant: a.merchant, provider: a.provider });
    const ids = [
      await newSchedule(t, a, { startDate: '2029-06-01T09:00:00Z' }),
      await newSchedule(t, a, { startDate: '2029-06-02T09:00:00Z' }),
      await newSchedule(t, c2, { startDate: '2029-06-03T09:00:00Z' }),
    ];
    expect((await t.call('POST', `/v1/recurring/${ids[1]}/pause`, { key: a.merchant.apiKey })).status).toBe(200);

    const all = await list(a);
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBe(3);
    expect(all.body.data.schedules.map((s: any) => s.scheduleId)).toEqual([...ids].reverse());
    expect(Object.keys(all.body.data.schedules[0]).sort()).toEqual(
      [
        'amount',
        'createdAt',
        'currency',
        'customer',
        'customerId',
        'frequency',
        'nextBillingDate',
        'scheduleId',
        'status',
        'totalBillings',
      ].sort(),
    );

    const mine = await list(a, { customerId: a.customerId });
    expect(mine.body.data.total).toBe(2);
    // Each schedule names its customer.
    for (const sch of mine.body.data.schedules)
      expect(sch.customer).toEqual({ name: expect.stringMatching(/^Ada Obi\d+$/), email: a.email });
    const paused = await list(a, { status: 'paused' });
    expect(paused.body.data).toMatchObject({ total: 1, schedules: [{ scheduleId: ids[1], status: 'paused' }] });
    const both = await list(a, { customerId: a.customerId, status: 'active' });
    expect(both.body.data.schedules.map((s: any) => s.scheduleId)).toEqual([ids[0]]);
    const page = await list(a, { limit: 1, skip: 1 });
    expect(page.body.data).toMatchObject({ total: 3, schedules: [{ scheduleId: ids[1] }] });
    expect((await list(a, { skip: 5 })).body.data).toEqual({ schedules: [], total: 3, hasMore: false });

    for (const q of [{ limit: 101 }, { limit: 0 }, { skip: -1 }, { status: 'bogus' }, { customerId: '' }, { sort: 'asc' }] as Array<
      Record<string, string | number>
    >) {
      await expectError(await list(a, q), 400, 'Invalid query parameters');
    }
    // Another merchant sees none of these.
    const other = await recurringAgreement(t);
    expect((await list(other)).body.data.total).toBe(0);
  });
});

describe('bank subscriptions', () => {
  it("the bank lists its customers' schedules with merchant names; other banks see none", async () => {
    const a = await recurringAgreement(t);
    const sameBankOtherMerchant = await recurringAgreement(t, { bank: a.bank });
    const otherBank = await recurringAgreement(t);
    const s1 = await newSchedule(t, a, { startDate: '2029-07-01T09:00:00Z', amount: 10 });
    const s2 = await newSchedule(t, sameBankOtherMerchant, { startDate: '2029-07-02T09:00:00Z', amount: 20 });
    const s3 = await newSchedule(t, otherBank, { startDate: '2029-07-03T09:00:00Z' });
    expect((await t.call('DELETE', `/v1/recurring/${s1}`, { key: a.merchant.apiKey })).status).toBe(200);

    const r = await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.bank.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data.total).toBe(2);
    const subs = r.body.data.subscriptions;
    expect(subs.map((s: any) => s.scheduleId)).toEqual([s2, s1]);
    expect(subs[0]).toMatchObject({
      scheduleId: s2,
      customerId: sameBankOtherMerchant.customerId,
      entityId: sameBankOtherMerchant.merchant.id,
      merchantName: sameBankOtherMerchant.merchant.name,
      amount: 20,
      currency: 'NGN',
      frequency: 'monthly',
      status: 'active',
      nextBillingDate: '2029-07-02T09:00:00.000Z',
      totalBillings: 0,
    });
    expect(subs[1]).toMatchObject({ scheduleId: s1, merchantName: a.merchant.name, status: 'cancelled' });
    expect(subs[0]).not.toHaveProperty('agreementPhrase');
    expect(subs[0]).not.toHaveProperty('metadata');
    expect(subs.some((s: any) => s.scheduleId === s3)).toBe(false);

    const filtered = await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.bank.apiKey, query: { customerId: a.customerId } });
    expect(filtered.body.data).toMatchObject({ total: 1, subscriptions: [{ scheduleId: s1 }] });
    const active = await t.call('GET', '/v1/bank/customer/subscriptions', {
      key: a.bank.apiKey,
      query: { status: 'active', entityId: sameBankOtherMerchant.merchant.id },
    });
    expect(active.body.data).toMatchObject({ total: 1, subscriptions: [{ scheduleId: s2 }] });
    const paged = await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.bank.apiKey, query: { limit: 1, skip: 1 } });
    expect(paged.body.data).toMatchObject({ total: 2, subscriptions: [{ scheduleId: s1 }] });

    const other = await t.call('GET', '/v1/bank/customer/subscriptions', { key: otherBank.bank.apiKey });
    expect(other.body.data.subscriptions.map((s: any) => s.scheduleId)).toEqual([s3]);

    await expectError(
      await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.bank.apiKey, query: { limit: 500 } }),
      400,
      'Invalid query parameters',
    );
    await expectError(
      await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.bank.apiKey, query: { status: 'x' } }),
      400,
      'Invalid query parameters',
    );
    await expectError(
      await t.call('GET', '/v1/bank/customer/subscriptions', { key: a.merchant.apiKey }),
      403,
      'Forbidden for this participant type',
    );
  });
});
