/**
 * Money: captures post to the ledger and the unsettled balance; the tick settles
 * them at 00:00 Lagos of the next Nigerian business day (across weekends and holidays);
 * `GET /v1/balance/details`; the ledger invariant after every scenario. Real local stack.
 */
import { describe, expect, it } from 'vitest';
import { nextBusinessDay, settlementDate } from '../../functions/domain/business-days';
import { lagosDate, startOfLagosDay } from '../../functions/domain/lagos-time';
import type { BillItem } from '../../functions/bills/types';
import {
  captureItems,
  readMerchantBatches,
  readMerchantEntries,
  readSettlementDay,
  SHARD_SPREAD_AFTER,
} from '../../functions/ledger/store';
import { isTransactionCancelled, queryAll, transact } from '../../functions/platform/table';
import { settleDue } from '../../functions/ledger/settlement';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bankResponse, bill, events, receivedEvents, webhook, type Hook } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { expectLedgerInvariant, fixtureBill, lagos, type Parties } from '../support/money-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { WITHDRAWAL_MIN: '500', WITHDRAWAL_MAX: '2000000.5' },
);

interface Merchant {
  id: string;
  apiKey: string;
  name: string;
  provider?: { id: string; apiKey: string };
  hooks: { merchant: Hook; provider?: Hook };
  parties: Parties;
}

/** A merchant (under a provider), a bank, and webhook endpoints for merchant and provider. */
async function merchantSetup(extra: Record<string, unknown> = {}): Promise<Merchant> {
  const provider = await t.participant('provider');
  const m = await t.participant('merchant', { providerId: provider.id, ...extra });
  const bank = await t.participant('bank');
  const hooks = { merchant: await webhook(t, rx, m, { label: 'm' }), provider: await webhook(t, rx, provider, { label: 'p' }) };
  return {
    id: m.id,
    apiKey: m.apiKey,
    name: m.name,
    provider,
    hooks,
    parties: { merchant: { id: m.id, name: m.name, providerId: provider.id }, bankId: bank.id },
  };
}

const balance = async (key: string, headers?: Record<string, string>) => {
  const r = await t.call('GET', '/v1/balance/details', { key, headers });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};

/** Start of the next business day after today (Lagos), as the API shows it. */
const nextBusinessDayIso = () => startOfLagosDay(nextBusinessDay(lagosDate(new Date()))).toISOString();

const entries = readMerchantEntries;
const batches = readMerchantBatches;

async function tick(iso: string) {
  const r = await t.app.tick(new Date(iso));
  await t.app.settle();
  return r;
}

describe('GET /v1/balance/details', () => {
  it('with nothing: zeros, nextSettlement 0 on the next business day, bank account nulls, withdrawal unsupported', async () => {
    const m = await t.participant('merchant');
    const before = nextBusinessDayIso();
    const r = await t.call('GET', '/v1/balance/details', { key: m.apiKey });
    const after = nextBusinessDayIso();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ statusCode: 200, success: true, message: 'Balance retrieved' });
    expect(r.body.data).toEqual({
      totalBalance: 0,
      unsettledBalance: 0,
      settledBalance: 0,
      currency: 'NGN',
      bankAccountInfo: { bankName: null, accountNumber: null, accountName: null },
      withdrawalInfo: { isSupported: false, minimumAmount: 500, maximumAmount: 2000000.5 },
      nextSettlement: { amount: 0, currency: 'NGN', date: expect.any(String) },
    });
    expect([before, after]).toContain(r.body.data.nextSettlement.date);
    expect(r.body.data.nextSettlement.date).toMatch(/^\d{4}-\d{2}-\d{2}T23:00:00\.000Z$/); // 00:00 Lagos
    expect(Date.parse(r.body.data.nextSettlement.date)).toBeGreaterThan(Date.now());
  });

  it("shows the merchant's registered settlement account and supports withdrawal once it is set", async () => {
    const m = await t.participant('merchant', {
      bankAccount: { bankName: 'Zenith Bank', accountNumber: '0123456789', accountName: 'Ada Stores Ltd' },
    });
    const data = await balance(m.apiKey);
    expect(data.bankAccountInfo).toEqual({ bankName: 'Zenith Bank', accountNumber: '0123456789', accountName: 'Ada Stores Ltd' });
    expect(data.withdrawalInfo).toEqual({ isSupported: true, minimumAmount: 500, maximumAmount: 2000000.5 });
    const partial = await t.participant('merchant', { bankAccount: { bankName: 'Zenith Bank' } });
    const p = await balance(partial.apiKey);
    expect(p.bankAccountInfo).toEqual({ bankName: 'Zenith Bank', accountNumber: null, accountName: null });
    expect(p.withdrawalInfo.isSupported).toBe(false);
  });

  it('a provider reads its merchant with X-Entity-Id; another provider gets 404; a bank is refused', async () => {
    const m = await merchantSetup();
    await fixtureBill({ parties: m.parties, amount: 12_345, capturedAt: lagos('2030-03-05T10:00:00') });
    const own = await balance(m.provider!.apiKey, { 'x-entity-id': m.id });
    expect(own).toMatchObject({ unsettledBalance: 123.45, totalBalance: 123.45, settledBalance: 0 });
    const other = await t.participant('provider');
    const r = await t.call('GET', '/v1/balance/details', { key: other.apiKey, headers: { 'x-entity-id': m.id } });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Merchant not found');
    const bank = await t.participant('bank');
    const b = await t.call('GET', '/v1/balance/details', { key: bank.apiKey });
    expect(b.status).toBe(403);
    expect(b.body.message).toBe('Forbidden for this participant type');
    await expectLedgerInvariant();
  });

  it('unsettled is what the pending batches hold, whatever their age; settled is the balance shards, written by settlement only', async () => {
    const m = await merchantSetup();
    // A day the tick has not settled 40 days on (an outage) still counts, as does a day not yet due.
    const old = await fixtureBill({ parties: m.parties, amount: 40_000, capturedAt: new Date(Date.now() - 40 * 86_400_000) });
    await fixtureBill({ parties: m.parties, amount: 2_500, capturedAt: new Date() });
    const shards = () =>
      queryAll<Record<string, unknown>>({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `BAL#${m.id}` },
        ConsistentRead: true,
      });
    expect(await shards()).toEqual([]); // a capture writes no balance shard (the batch ADD is the unsettled balance)
    const before = await balance(m.apiKey);
    expect(before).toMatchObject({ unsettledBalance: 425, settledBalance: 0, totalBalance: 425 });
    expect(before.nextSettlement).toEqual({ amount: 400, currency: 'NGN', date: startOfLagosDay(old.settlementDate!).toISOString() });
    await expectLedgerInvariant();

    await tick(new Date().toISOString()); // the tick finds the old day on the due index
    const after = await balance(m.apiKey);
    expect(after).toMatchObject({ unsettledBalance: 25, settledBalance: 400, totalBalance: 425 });
    expect(after.nextSettlement.amount).toBe(25);
    const written = await shards();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ settled: 40_000, merchantId: m.id });
    expect(written[0]).not.toHaveProperty('unsettled');
    await expectLedgerInvariant();
  });
});

describe('capture and settlement', () => {
  it('across a weekend: Friday and Saturday captures are unsettled until 00:00 Lagos on Monday, then settled', async () => {
    const m = await merchantSetup();
    const amounts = [150_050, 99, 2_500_00, 1_00];
    const at = ['2030-03-08T09:00:00', '2030-03-08T18:30:00', '2030-03-08T23:59:59', '2030-03-09T00:30:00'].map(lagos);
    const made: BillItem[] = [];
    for (const [i, a] of amounts.entries()) made.push(await fixtureBill({ parties: m.parties, amount: a, capturedAt: at[i]! }));
    const total = amounts.reduce((s, a) => s + a, 0);
    for (const b of made) expect(b).toMatchObject({ status: 'succeeded', settlementDate: '2030-03-11' });

    const before = await balance(m.apiKey);
    expect(before).toMatchObject({
      totalBalance: total / 100,
      unsettledBalance: total / 100,
      settledBalance: 0,
      nextSettlement: { amount: total / 100, currency: 'NGN', date: '2030-03-10T23:00:00.000Z' },
    });
    const caps = await entries(m.id);
    expect(caps).toHaveLength(4);
    for (const e of caps) {
      expect(e).toMatchObject({
        kind: 'capture',
        debit: `bank:${m.parties.bankId}`,
        credit: `merchant_unsettled:${m.id}`,
        currency: 'NGN',
        settlementDate: '2030-03-11',
      });
    }
    expect(caps.map((e) => e.amount).sort((a, b) => a - b)).toEqual([...amounts].sort((a, b) => a - b));
    await expectLedgerInvariant();

    // One millisecond before Monday 00:00 Lagos: nothing is due.
    await tick('2030-03-10T22:59:59.999Z');
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: total / 100, settledBalance: 0 });

    await tick('2030-03-10T23:00:00.000Z');
    const after = await balance(m.apiKey);
    expect(after).toMatchObject({ totalBalance: total / 100, unsettledBalance: 0, settledBalance: total / 100 });
    expect(after.nextSettlement).toEqual({ amount: 0, currency: 'NGN', date: nextBusinessDayIso() });
    for (const b of await batches(m.id)) {
      expect(b).toMatchObject({ status: 'settled', amount: 0, settleRound: 1 });
      expect(b.dueSk).toBeUndefined();
    }
    const settlement = (await entries(m.id)).filter((e) => e.kind === 'settlement');
    expect(settlement).toHaveLength(1);
    expect(settlement[0]).toMatchObject({
      debit: `merchant_unsettled:${m.id}`,
      credit: `merchant_settled:${m.id}`,
      amount: total,
      settlementDate: '2030-03-11',
    });

    // settlement.completed to the merchant and to its provider, once each.
    const expected = { entityId: m.id, settlementDate: '2030-03-11', amount: total / 100, currency: 'NGN', count: 4 };
    const [toMerchant] = await events(rx, m.hooks.merchant, 'settlement.completed', 1);
    expect(toMerchant!.data).toMatchObject({
      ...expected,
      settlementId: expect.stringMatching(/^stl_/),
      settledAt: '2030-03-10T23:00:00.000Z',
    });
    const [toProvider] = await events(rx, m.hooks.provider!, 'settlement.completed', 1);
    expect(toProvider!.data).toEqual(toMerchant!.data);

    // A later tick changes nothing.
    await tick('2030-03-10T23:05:00.000Z');
    expect((await entries(m.id)).filter((e) => e.kind === 'settlement')).toHaveLength(1);
    expect(receivedEvents(rx, m.hooks.merchant, 'settlement.completed')).toHaveLength(1);
    await expectLedgerInvariant();
  });

  it('across holidays: Good Friday + Easter Monday, and Christmas + Boxing Day', async () => {
    const m = await merchantSetup();
    // Thursday before Easter 2030 -> Tuesday 2030-04-23 (Fri 19 and Mon 22 are holidays).
    await fixtureBill({ parties: m.parties, amount: 10_000, capturedAt: lagos('2030-04-18T10:00:00') });
    expect((await balance(m.apiKey)).nextSettlement).toEqual({ amount: 100, currency: 'NGN', date: '2030-04-22T23:00:00.000Z' });
    await tick('2030-04-18T23:00:00.000Z'); // Good Friday 00:00
    await tick('2030-04-21T23:00:00.000Z'); // Easter Monday 00:00
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 100, settledBalance: 0 });
    await tick('2030-04-22T23:00:00.000Z'); // Tuesday 00:00
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 100 });

    // Christmas Eve (Tuesday) 2030 -> Friday 2030-12-27 (25 and 26 are holidays).
    await fixtureBill({ parties: m.parties, amount: 7_000, capturedAt: lagos('2030-12-24T15:00:00') });
    expect((await balance(m.apiKey)).nextSettlement).toEqual({ amount: 70, currency: 'NGN', date: '2030-12-26T23:00:00.000Z' });
    await tick('2030-12-25T23:00:00.000Z'); // Boxing Day 00:00
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 70, settledBalance: 100 });
    await tick('2030-12-26T23:00:00.000Z');
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 170, totalBalance: 170 });
    await expectLedgerInvariant();
  });

  it('nextSettlement is the earliest pending day; later days stay pending until theirs', async () => {
    const m = await merchantSetup();
    await fixtureBill({ parties: m.parties, amount: 1_000, capturedAt: lagos('2030-06-03T10:00:00') }); // Mon -> Tue 06-04
    await fixtureBill({ parties: m.parties, amount: 2_000, capturedAt: lagos('2030-06-04T10:00:00') }); // Tue -> Wed 06-05
    await fixtureBill({ parties: m.parties, amount: 4_000, capturedAt: lagos('2030-06-04T11:00:00') });
    expect(await balance(m.apiKey)).toMatchObject({
      unsettledBalance: 70,
      nextSettlement: { amount: 10, date: '2030-06-03T23:00:00.000Z' },
    });
    await tick('2030-06-03T23:00:00.000Z');
    expect(await balance(m.apiKey)).toMatchObject({
      unsettledBalance: 60,
      settledBalance: 10,
      nextSettlement: { amount: 60, date: '2030-06-04T23:00:00.000Z' },
    });
    await tick('2030-06-04T23:00:00.000Z');
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: 70 });
    await expectLedgerInvariant();
  });

  it('30 captures, 14 of them concurrent after shard 0 took the first SHARD_SPREAD_AFTER, spread over the shards and settle together in one settlement', async () => {
    const m = await merchantSetup();
    const n = 30;
    const capture = (i: number) => fixtureBill({ parties: m.parties, amount: 100 + i, capturedAt: lagos('2030-07-02T12:00:00') });
    await Promise.all(Array.from({ length: SHARD_SPREAD_AFTER }, (_, i) => capture(i)));
    await Promise.all(Array.from({ length: n - SHARD_SPREAD_AFTER }, (_, i) => capture(SHARD_SPREAD_AFTER + i)));
    const total = Array.from({ length: n }, (_, i) => 100 + i).reduce((s, a) => s + a, 0);
    const bs = await batches(m.id);
    expect(bs.length).toBeGreaterThan(1); // several shards of one day
    expect(bs.reduce((s, b) => s + b.amount, 0)).toBe(total);
    expect(bs.reduce((s, b) => s + b.count, 0)).toBe(n);
    expect(await balance(m.apiKey)).toMatchObject({
      unsettledBalance: total / 100,
      nextSettlement: { amount: total / 100, date: '2030-07-02T23:00:00.000Z' },
    });
    await expectLedgerInvariant();

    // Two ticks at once claim the day's shards between them: still one settlement.
    await Promise.all([t.app.tick(new Date('2030-07-02T23:00:00.000Z')), t.app.tick(new Date('2030-07-02T23:00:00.000Z'))]);
    await t.app.settle();
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 0, settledBalance: total / 100 });
    expect((await entries(m.id)).filter((e) => e.kind === 'settlement')).toHaveLength(1);
    const [e] = await events(rx, m.hooks.merchant, 'settlement.completed', 1);
    expect(e!.data).toMatchObject({ amount: total / 100, count: n, settlementDate: '2030-07-03' });
    await sleep(300);
    expect(receivedEvents(rx, m.hooks.merchant, 'settlement.completed')).toHaveLength(1);
    await expectLedgerInvariant();
  });

  it('a capture that commits after its day was settled re-opens the batch and settles on the next tick', async () => {
    const m = await merchantSetup();
    await fixtureBill({ parties: m.parties, amount: 5_000, capturedAt: lagos('2030-08-06T20:00:00') }); // -> Wed 08-07
    await tick('2030-08-06T23:00:00.000Z');
    expect(await balance(m.apiKey)).toMatchObject({ settledBalance: 50, unsettledBalance: 0 });
    // A bank approval stamped 23:59:59 the day before, committed after the settlement ran (clock skew).
    const late = await fixtureBill({ parties: m.parties, amount: 700, capturedAt: lagos('2030-08-06T23:59:59') });
    expect(late.settlementDate).toBe('2030-08-07');
    expect(await balance(m.apiKey)).toMatchObject({
      settledBalance: 50,
      unsettledBalance: 7,
      nextSettlement: { amount: 7, date: '2030-08-06T23:00:00.000Z' },
    });
    await expectLedgerInvariant();
    await tick('2030-08-06T23:01:00.000Z');
    expect(await balance(m.apiKey)).toMatchObject({ settledBalance: 57, unsettledBalance: 0 });
    const rounds = (await entries(m.id)).filter((e) => e.kind === 'settlement').map((e) => e.amount);
    expect(rounds.sort((a, b) => a - b)).toEqual([700, 5_000]);
    const evs = await events(rx, m.hooks.merchant, 'settlement.completed', 2);
    expect(new Set(evs.map((e) => e.data.settlementId)).size).toBe(2);
    await expectLedgerInvariant();
  });

  it('a replayed capture cannot post twice: the entry key is deterministic and conditioned', async () => {
    const m = await merchantSetup();
    const b = await fixtureBill({ parties: m.parties, amount: 4_200, capturedAt: lagos('2030-09-03T10:00:00') });
    const at = lagos('2030-09-03T10:00:05');
    const err = await transact(captureItems(b, at, await readSettlementDay(b.merchantId, at))).catch((e) => e);
    expect(isTransactionCancelled(err)).toBe(true);
    expect(await balance(m.apiKey)).toMatchObject({ unsettledBalance: 42 });
    expect(await entries(m.id)).toHaveLength(1);
    await expectLedgerInvariant();
  });

  it('settleDue: one merchant now (sandbox helper, future days included), or everything due by a time', async () => {
    const a = await merchantSetup();
    const b = await merchantSetup();
    await fixtureBill({ parties: a.parties, amount: 1_100, capturedAt: lagos('2030-10-08T10:00:00') }); // -> 10-09
    await fixtureBill({ parties: a.parties, amount: 2_200, capturedAt: lagos('2030-10-09T10:00:00') }); // -> 10-10
    await fixtureBill({ parties: b.parties, amount: 3_300, capturedAt: lagos('2030-10-08T10:00:00') }); // -> 10-09

    // Only what is due at 10-09 00:00 Lagos, for every merchant.
    const due = (await settleDue(undefined, new Date('2030-10-08T23:00:00.000Z'))).filter((r) => [a.id, b.id].includes(r.merchantId));
    expect(due.map((r) => [r.merchantId, r.settlementDate, r.amount]).sort()).toEqual(
      [
        [a.id, '2030-10-09', 1_100],
        [b.id, '2030-10-09', 3_300],
      ].sort(),
    );
    expect(await balance(a.apiKey)).toMatchObject({ settledBalance: 11, unsettledBalance: 22 });

    // The sandbox helper: everything of merchant a now, later days too.
    await fixtureBill({ parties: a.parties, amount: 4_400, capturedAt: lagos('2030-10-10T10:00:00') }); // -> 10-11
    const now = await settleDue(a.id, new Date('2030-10-09T08:00:00.000Z'), { includeFuture: true });
    expect(now.map((r) => r.settlementDate)).toEqual(['2030-10-10', '2030-10-11']);
    expect(await balance(a.apiKey)).toMatchObject({ settledBalance: 77, unsettledBalance: 0 });
    expect(await balance(b.apiKey)).toMatchObject({ settledBalance: 33, unsettledBalance: 0 });
    // Nothing left: a tick on those days finds the batches settled.
    await tick('2030-10-10T23:00:00.000Z');
    expect(await balance(a.apiKey)).toMatchObject({ settledBalance: 77, unsettledBalance: 0 });
    await expectLedgerInvariant();
  });
});

describe('end to end through the API', () => {
  it('bill -> bank approval -> unsettled (next business day) -> tick on that day -> settled, merchant and provider notified', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', withProvider: true, receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 2500.75);
    expect(r.status).toBe(201);
    const el = r.body[0];
    const approvedAt = new Date();
    const br = await bankResponse(t, a.bank, el.billingRequestId, 'approve_recurring');
    expect(br.status).toBe(200);
    const { date, at } = settlementDate(approvedAt);

    const before = await balance(a.merchant.apiKey);
    expect(before).toMatchObject({ unsettledBalance: 2500.75, settledBalance: 0, totalBalance: 2500.75 });
    expect(before.nextSettlement).toEqual({ amount: 2500.75, currency: 'NGN', date: at.toISOString() });
    await expectLedgerInvariant();

    await tick(at.toISOString());
    const after = await balance(a.merchant.apiKey);
    expect(after).toMatchObject({ unsettledBalance: 0, settledBalance: 2500.75, totalBalance: 2500.75 });
    const [e] = await events(rx, a.hooks!.merchant, 'settlement.completed', 1);
    expect(e!.data).toMatchObject({ entityId: a.merchant.id, settlementDate: date, amount: 2500.75, currency: 'NGN', count: 1 });
    await events(rx, a.hooks!.provider!, 'settlement.completed', 1, (x) => x.data.entityId === a.merchant.id);
    await expectLedgerInvariant();
  });
});
