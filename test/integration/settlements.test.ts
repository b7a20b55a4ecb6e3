/**
 * Reconciliation (DESIGN 8.8): settlement records with their lines, `settlementId`
 * on transactions and on `settlement.completed`, `GET /v1/settlements` and
 * `GET /v1/settlements/{id}`. Real local stack; captures at chosen times through the
 * billing flow's own code (money-fixtures), refunds through the API and the refund store.
 */
import { describe, expect, it } from 'vitest';
import { billKey, type BillItem } from '../../functions/bills/types';
import { db } from '../../functions/platform/clients';
import { dueAttributes, parseDueSk } from '../../functions/platform/due';
import { getItem, queryAll, table } from '../../functions/platform/table';
import { config } from '../../functions/config';
import { readMerchantBatches, SHARD_SPREAD_AFTER } from '../../functions/ledger/store';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SETTLEMENT_LINES_KIND } from '../../functions/ledger/settlement-store';
import { getSettlement, linesPk, settlementKey } from '../../functions/ledger/settlement-views';
import { completeRefund } from '../../functions/refunds/complete';
import { settleDue } from '../../functions/ledger/settlement';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { events, webhook, type Hook } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { expectLedgerInvariant, fixtureBill, lagos, type Parties } from '../support/money-fixtures';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

interface Setup {
  merchant: { id: string; apiKey: string; name: string };
  provider: { id: string; apiKey: string };
  hook: Hook;
  parties: Parties;
}

async function setup(): Promise<Setup> {
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  const bank = await t.participant('bank');
  const hook = await webhook(t, rx, merchant, { label: 'm' });
  return {
    merchant,
    provider,
    hook,
    parties: { merchant: { id: merchant.id, name: merchant.name, providerId: provider.id }, bankId: bank.id },
  };
}

const tick = async (iso: string) => {
  await t.app.tick(new Date(iso));
  await t.app.settle();
};
const getBill = async (id: string) => (await getItem<BillItem>(billKey(id)))!;
const list = (key: string, query: Record<string, string> = {}, headers?: Record<string, string>) =>
  t.call('GET', '/v1/settlements', { key, query, headers });
const detail = (key: string, id: string, headers?: Record<string, string>) =>
  t.call('GET', `/v1/settlements/${encodeURIComponent(id)}`, { key, headers });

async function refund(key: string, reference: string, amount: number) {
  const r = await t.call('POST', '/v1/refunds/initiate', { key, body: { reference, amount } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const done = await completeRefund(r.body.data.refundId, new Date());
  expect(done!.status).toBe('completed');
}

/** The settlement a transaction names, as the API shows it (null until settled). */
async function settledBy(s: Setup, reference: string): Promise<string | null> {
  const r = await t.call('GET', '/v1/transaction-details', { key: s.merchant.apiKey, query: { reference } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.settlementId;
}

const sum = (xs: number[]) => Math.round(xs.reduce((s, x) => s + x * 100, 0)) / 100;

describe('settlements with lines', () => {
  it('lines sum to the amount across refunds and the Easter 2030 holidays; settlementId on exactly the settled transactions; a late capture settles as round 2', async () => {
    const s = await setup();
    // Thursday before Good Friday, Good Friday, Saturday, Easter Monday: all settle on Tuesday 2030-04-23.
    const a = await fixtureBill({ parties: s.parties, amount: 100_00, capturedAt: lagos('2030-04-18T10:00:00') });
    const b = await fixtureBill({ parties: s.parties, amount: 20_00, capturedAt: lagos('2030-04-19T12:00:00') });
    const c = await fixtureBill({ parties: s.parties, amount: 7_77, capturedAt: lagos('2030-04-20T08:00:00') });
    const d = await fixtureBill({ parties: s.parties, amount: 1_234_56, capturedAt: lagos('2030-04-22T09:00:00') });
    for (const x of [a, b, c, d]) expect(x.settlementDate).toBe('2030-04-23');
    const later = await fixtureBill({ parties: s.parties, amount: 50_00, capturedAt: lagos('2030-04-23T10:00:00') }); // settles 04-24
    const pending = await fixtureBill({ parties: s.parties, amount: 9_00 }); // never captured
    await refund(s.merchant.apiKey, a.reference, 30.5); // partial, from the pending batch
    await refund(s.merchant.apiKey, b.reference, 20); // full

    await tick('2030-04-22T23:00:00.000Z'); // 00:00 Lagos, Tuesday 2030-04-23
    const expected = sum([100, 20, 7.77, 1234.56, -30.5, -20]);

    const r = await list(s.merchant.apiKey);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.message).toBe('Settlements retrieved');
    expect(r.body.data.hasMore).toBe(false);
    expect(r.body.data.settlements).toEqual([
      {
        settlementId: expect.stringMatching(/^stl_/),
        businessDate: '2030-04-23',
        amount: expected,
        currency: 'NGN',
        transactionCount: 4,
        refundCount: 2,
        status: 'completed',
        settledAt: '2030-04-22T23:00:00.000Z',
      },
    ]);
    const first = r.body.data.settlements[0];

    const one = await detail(s.merchant.apiKey, first.settlementId);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.message).toBe('Settlement retrieved');
    expect(one.body.data).toMatchObject({ ...first, linesComplete: true });
    const lines = one.body.data.lines as { reference: string; type: string; amount: number }[];
    expect(sum(lines.map((l) => l.amount))).toBe(expected);
    expect(
      lines
        .filter((l) => l.type === 'payment')
        .map((l) => [l.reference, l.amount])
        .sort(),
    ).toEqual(
      [
        [a.reference, 100],
        [b.reference, 20],
        [c.reference, 7.77],
        [d.reference, 1234.56],
      ].sort(),
    );
    expect(
      lines
        .filter((l) => l.type === 'refund')
        .map((l) => [l.reference, l.amount])
        .sort(),
    ).toEqual(
      [
        [a.reference, -30.5],
        [b.reference, -20],
      ].sort(),
    );

    // settlement.completed names the same settlement.
    const [evt] = await events(rx, s.hook, 'settlement.completed', 1);
    expect(evt!.data).toMatchObject({ settlementId: first.settlementId, amount: expected, settlementDate: '2030-04-23' });

    // settlementId on exactly the settled transactions, as the API shows it; the settlement rewrote no bill.
    for (const x of [a, b, c, d]) expect(await settledBy(s, x.reference)).toBe(first.settlementId);
    for (const x of [later, pending]) expect(await settledBy(s, x.reference)).toBeNull();
    for (const x of [a, b, c, d]) expect((await getBill(x.billingRequestId)).settlementId).toBeUndefined();

    // A capture stamped before 00:00 that commits after the run re-opens the day: round 2, its own lines.
    const late = await fixtureBill({ parties: s.parties, amount: 3_00, capturedAt: lagos('2030-04-22T23:59:59') });
    expect(late.settlementDate).toBe('2030-04-23');
    await tick('2030-04-22T23:10:00.000Z');
    const both = await list(s.merchant.apiKey);
    expect(
      both.body.data.settlements.map((x: { businessDate: string; amount: number; transactionCount: number }) => [
        x.businessDate,
        x.amount,
        x.transactionCount,
      ]),
    ).toEqual([
      ['2030-04-23', 3, 1],
      ['2030-04-23', expected, 4],
    ]);
    const second = both.body.data.settlements[0];
    expect(second.settlementId).not.toBe(first.settlementId);
    expect((await detail(s.merchant.apiKey, second.settlementId)).body.data.lines).toEqual([
      { reference: late.reference, type: 'payment', amount: 3 },
    ]);
    expect(await settledBy(s, late.reference)).toBe(second.settlementId);
    // The first settlement's lines did not change.
    expect((await detail(s.merchant.apiKey, first.settlementId)).body.data.lines).toHaveLength(6);

    // A refund of settled funds belongs to no settlement.
    await refund(s.merchant.apiKey, c.reference, 7.77);
    expect(sum((await detail(s.merchant.apiKey, first.settlementId)).body.data.lines.map((l: { amount: number }) => l.amount))).toBe(
      expected,
    );
    await expectLedgerInvariant();
  });

  it('pages newest first with limit and startingAfter', async () => {
    const s = await setup();
    for (const day of ['2030-06-03', '2030-06-04', '2030-06-05']) {
      await fixtureBill({ parties: s.parties, amount: 10_00, capturedAt: lagos(`${day}T10:00:00`) });
    }
    for (const iso of ['2030-06-03T23:00:00.000Z', '2030-06-04T23:00:00.000Z', '2030-06-05T23:00:00.000Z']) await tick(iso);
    const p1 = await list(s.merchant.apiKey, { limit: '2' });
    expect(p1.status).toBe(200);
    expect(p1.body.data.settlements.map((x: { businessDate: string }) => x.businessDate)).toEqual(['2030-06-06', '2030-06-05']);
    expect(p1.body.data.hasMore).toBe(true);
    const p2 = await list(s.merchant.apiKey, { limit: '2', startingAfter: p1.body.data.settlements[1].settlementId });
    expect(p2.body.data.settlements.map((x: { businessDate: string }) => x.businessDate)).toEqual(['2030-06-04']);
    expect(p2.body.data.hasMore).toBe(false);
    for (const bad of [{ limit: '0' }, { limit: '101' }, { startingAfter: 'stl_nope' }, { skip: '1' }] as Record<string, string>[]) {
      const r = await list(s.merchant.apiKey, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
    }
  });

  it("isolation: another merchant's settlement is 404, its provider reads it with X-Entity-Id, another provider gets 404, a bank is refused", async () => {
    const s = await setup();
    await fixtureBill({ parties: s.parties, amount: 10_00, capturedAt: lagos('2030-07-01T10:00:00') });
    await tick('2030-07-01T23:00:00.000Z');
    const [own] = (await list(s.merchant.apiKey)).body.data.settlements;
    expect(own).toBeDefined();

    const other = await t.participant('merchant');
    const foreign = await detail(other.apiKey, own.settlementId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Settlement not found');
    expect((await list(other.apiKey)).body.data.settlements).toEqual([]);
    const cursor = await list(other.apiKey, { startingAfter: own.settlementId });
    expect(cursor.status).toBe(400);
    expect((await detail(s.merchant.apiKey, 'stl_unknown')).body.message).toBe('Settlement not found');

    const viaProvider = await detail(s.provider.apiKey, own.settlementId, { 'x-entity-id': s.merchant.id });
    expect(viaProvider.status).toBe(200);
    expect(viaProvider.body.data.settlementId).toBe(own.settlementId);
    expect((await list(s.provider.apiKey, {}, { 'x-entity-id': s.merchant.id })).body.data.settlements).toHaveLength(1);
    const otherProvider = await t.participant('provider');
    const op = await detail(otherProvider.apiKey, own.settlementId, { 'x-entity-id': s.merchant.id });
    expect(op.status).toBe(404);
    expect(op.body.message).toBe('Merchant not found');
    const bank = await t.participant('bank');
    const b = await list(bank.apiKey);
    expect(b.status).toBe(403);
    expect(b.body.message).toBe('Forbidden for this participant type');
  });

  it('captures racing settlement runs: every settlement pays exactly its lines, every capture is paid once and names its settlement', async () => {
    const s = await setup();
    const at = lagos('2030-12-02T10:00:00'); // settles 2030-12-03
    // Five waves of captures and a settlement run (the sandbox helper's path) at once: the first
    // wave takes the day past shard 0 (SHARD_SPREAD_AFTER), so the later ones race over every shard.
    const waves = [SHARD_SPREAD_AFTER + 4, 8, 8, 8, 8];
    const amounts = Array.from({ length: waves.reduce((a, b) => a + b, 0) }, (_, i) => 1_00 + i * 7);
    const bills: BillItem[] = [];
    for (let w = 0, from = 0; w < waves.length; from += waves[w]!, w++) {
      const [made] = await Promise.all([
        Promise.all(amounts.slice(from, from + waves[w]!).map((amount) => fixtureBill({ parties: s.parties, amount, capturedAt: at }))),
        settleDue(s.merchant.id, new Date(), { includeFuture: true }),
      ]);
      bills.push(...made);
    }
    await settleDue(s.merchant.id, new Date(), { includeFuture: true });

    const all: { settlementId: string; amount: number; transactionCount: number }[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(s.merchant.apiKey, { limit: '100', ...(cursor ? { startingAfter: cursor } : {}) });
      all.push(...page.body.data.settlements);
      cursor = page.body.data.hasMore ? page.body.data.settlements.at(-1).settlementId : undefined;
    } while (cursor);
    console.log(`racing captures: ${all.length} settlement rounds for ${bills.length} captures`);
    expect(sum(all.map((x) => x.amount))).toBe(sum(amounts.map((a) => a / 100)));
    const paidBy = new Map<string, string>();
    for (const stl of all) {
      const lines = (await detail(s.merchant.apiKey, stl.settlementId)).body.data.lines as { reference: string; amount: number }[];
      expect(sum(lines.map((l) => l.amount)), stl.settlementId).toBe(stl.amount);
      expect(lines).toHaveLength(stl.transactionCount);
      for (const l of lines) {
        expect(paidBy.has(l.reference), `${l.reference} paid twice`).toBe(false);
        paidBy.set(l.reference, stl.settlementId);
      }
    }
    expect(paidBy.size).toBe(bills.length);
    for (const b of bills) expect(await settledBy(s, b.reference)).toBe(paidBy.get(b.reference));
    await expectLedgerInvariant();
  });

  it('a quiet merchant-day is one shard: its captures go to shard 0 with the due entry, and its settlement writes no other shard', async () => {
    const s = await setup();
    const made = await Promise.all(
      Array.from({ length: 3 }, (_, i) => fixtureBill({ parties: s.parties, amount: 5_00 + i, capturedAt: lagos('2030-12-02T10:00:00') })),
    );
    const before = await readMerchantBatches(s.merchant.id);
    expect(before.map((b) => [b.pk, b.sk, b.count, b.dueSk !== undefined])).toEqual([
      [`SETTLE#${s.merchant.id}`, '2030-12-03#p0', 3, true],
    ]);
    await tick('2030-12-02T23:00:00.000Z');
    const [stl] = (await list(s.merchant.apiKey)).body.data.settlements;
    expect(stl).toMatchObject({ businessDate: '2030-12-03', transactionCount: 3, amount: sum(made.map((b) => b.amount / 100)) });
    const after = await readMerchantBatches(s.merchant.id);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ sk: '2030-12-03#p0', status: 'settled', amount: 0, settleRound: 1 });
    expect(after[0]!.dueSk).toBeUndefined();
    await expectLedgerInvariant();
  });

  it('one due entry and one job per merchant-day; every line is written once (the settlement rewrites no line and no bill)', async () => {
    const s = await setup();
    const capture = (i: number) => fixtureBill({ parties: s.parties, amount: 10_00 + i, capturedAt: lagos('2030-12-09T10:00:00') });
    // A busy day: shard 0 takes the first SHARD_SPREAD_AFTER captures, the rest spread over the shards.
    const made = await Promise.all(Array.from({ length: SHARD_SPREAD_AFTER }, (_, i) => capture(i)));
    made.push(...(await Promise.all(Array.from({ length: 12 }, (_, i) => capture(SHARD_SPREAD_AFTER + i)))));
    const shards = await readMerchantBatches(s.merchant.id);
    expect(shards.length).toBeGreaterThan(1); // the captures spread over several shards
    expect(shards.filter((b) => b.dueSk !== undefined).map((b) => parseDueSk(b.dueSk!))).toEqual([
      { at: '2030-12-09T23:00:00.000Z', kind: 'settlement', id: `${s.merchant.id}/2030-12-10` },
    ]);
    const linesBefore = await dayLines(s.merchant.id, '2030-12-10');
    expect(linesBefore).toHaveLength(made.length);
    const billsBefore = await Promise.all(made.map((b) => getBill(b.billingRequestId)));

    const claimsBefore = await claimsOf(s.merchant.id);
    await tick('2030-12-09T23:00:00.000Z');
    expect((await claimsOf(s.merchant.id)) - claimsBefore).toBe(1); // one job
    const [stl] = (await list(s.merchant.apiKey)).body.data.settlements;
    expect(stl).toMatchObject({ businessDate: '2030-12-10', transactionCount: made.length, amount: sum(made.map((b) => b.amount / 100)) });
    expect(await dayLines(s.merchant.id, '2030-12-10')).toEqual(linesBefore);
    expect(await Promise.all(made.map((b) => getBill(b.billingRequestId)))).toEqual(billsBefore);
    for (const b of made) expect(await settledBy(s, b.reference)).toBe(stl.settlementId);
    // Every shard of the spread day (BALANCE_SHARDS, also those no capture wrote) carries the round; none is due.
    const after = await readMerchantBatches(s.merchant.id);
    expect(after).toHaveLength(config.balanceShards());
    for (const b of after) expect(b).toMatchObject({ status: 'settled', amount: 0, settleRound: 1 });
    expect(after.filter((b) => b.dueSk !== undefined)).toEqual([]);
    await expectLedgerInvariant();
  });

  it('a settlement record put on the due index before release 3 (kind settlement.lines) is taken off it by the tick', async () => {
    const s = await setup();
    await fixtureBill({ parties: s.parties, amount: 12_00, capturedAt: lagos('2030-12-16T10:00:00') });
    await tick('2030-12-16T23:00:00.000Z');
    const [stl] = (await list(s.merchant.apiKey)).body.data.settlements;
    expect((await getSettlement(stl.settlementId))!.dueSk).toBeUndefined();
    const due = dueAttributes(SETTLEMENT_LINES_KIND, stl.settlementId, '2030-12-16T23:05:00.000Z');
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: settlementKey(stl.settlementId),
        UpdateExpression: 'SET duePk = :p, dueSk = :s',
        ExpressionAttributeValues: { ':p': due.duePk, ':s': due.dueSk },
      }),
    );
    await tick('2030-12-16T23:04:59.000Z'); // not yet due
    expect((await getSettlement(stl.settlementId))!.dueSk).toBe(due.dueSk);
    await tick('2030-12-16T23:05:00.000Z');
    expect((await getSettlement(stl.settlementId))!.dueSk).toBeUndefined();
    expect(await settledBy(s, (await detail(s.merchant.apiKey, stl.settlementId)).body.data.lines[0].reference)).toBe(stl.settlementId);
  });
});

/** The day's settlement lines as stored. */
const dayLines = (merchantId: string, date: string) =>
  queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': linesPk(merchantId, date) }, ConsistentRead: true });

/** How many times the tick claimed a due entry of the merchant's settlement shards. */
async function claimsOf(merchantId: string): Promise<number> {
  const shards = await readMerchantBatches(merchantId);
  return shards.reduce((n, b) => n + Number(b.dueClaims ?? 0), 0);
}
