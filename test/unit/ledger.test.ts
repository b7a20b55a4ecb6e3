/** The capture items (pure builders): keys, amounts, conditions, settlement day and due time. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import { settlementRecordPut } from '../../functions/ledger/settlement-store';
import { SETTLEMENT_COMPLETED, SETTLEMENT_EVENT_DERIVERS, settlementCompletedData } from '../../functions/ledger/settlement-views';
import {
  batchKey,
  batchKeyOf,
  captureEntryKey,
  merchantOfSettlePk,
  settlePks,
  LEDGER_PARTITIONS,
  ledgerPartition,
  ledgerPks,
  captureItems as captureItemsOn,
  entryPut,
  settledAdd,
  settlementDayOf,
  settlementEntry,
  dayShard,
  isSpread,
  SHARD_SPREAD_AFTER,
  type LedgerEntry,
  type SettlementBatch,
  type SettlementDay,
} from '../../functions/ledger/store';

beforeAll(() => {
  process.env.TABLE_NAME = 'unit';
  process.env.BALANCE_SHARDS = '4';
  process.env.DUE_SHARDS = '8';
});

const bill = (over: Partial<BillItem> = {}): BillItem =>
  ({
    pk: 'BILL#breq_1',
    sk: 'BILL',
    billingRequestId: 'breq_1',
    reference: 'txn_1',
    type: 'agreement',
    status: 'pending',
    merchantId: 'mer_1',
    merchantName: 'Ada',
    bankId: 'bnk_1',
    customerId: 'cus_1',
    decisionId: 'dec_1',
    amount: 150_050,
    currency: 'NGN',
    description: 'Order',
    requiresApproval: false,
    periods: { day: '2030-03-08', week: '2030-W10', month: '2030-03' },
    refundedAmount: 0,
    refundReserved: 0,
    createdAt: '2030-03-08T10:00:00.000Z',
    updatedAt: '2030-03-08T10:00:00.000Z',
    ...over,
  }) as BillItem;

const lagos = (s: string) => new Date(`${s}+01:00`);

/** A capture on a settlement day no settlement has run on yet, with no due entry yet. */
const FRESH_DAY: SettlementDay = { round: 0, due: false, spread: false };
const captureItems = (b: BillItem, at: Date, day = FRESH_DAY, shard?: number) => captureItemsOn(b, at, day, shard);

describe('captureItems', () => {
  it('three items: the entry that is its settlement line (conditioned), the settlement batch shard for the next business day, the bank day counter', () => {
    const items = captureItems(bill(), lagos('2030-03-08T18:00:00'), FRESH_DAY, 0); // Friday, shard 0
    expect(items).toHaveLength(3);
    const entry = items[0]!.Put!;
    expect(entry.ConditionExpression).toBe('attribute_not_exists(pk)');
    const e = entry.Item as LedgerEntry;
    // One item, the ledger entry and the day's settlement line (it names the round that pays it).
    expect(e).toEqual({
      pk: 'SLINE#mer_1#2030-03-11',
      sk: '2030-03-08T10:00:00.000Z#capture:breq_1',
      entryId: 'capture:breq_1',
      kind: 'capture',
      merchantId: 'mer_1',
      debit: 'bank:bnk_1',
      credit: 'merchant_unsettled:mer_1',
      amount: 150_050,
      currency: 'NGN',
      reference: 'txn_1',
      billingRequestId: 'breq_1',
      settlementDate: '2030-03-11',
      batchSk: '2030-03-11#p0',
      stlRound: 1,
      type: 'payment',
      postedAt: '2030-03-08T17:00:00.000Z',
    });
    // No balance shard: the batch shard's ADD is the unsettled balance (readBalance sums the pending batches).
    expect(items.some((i) => String(i.Update?.Key?.pk ?? '').startsWith('BAL#'))).toBe(false);
    const batch = items[1]!.Update!;
    expect(batch.Key!.pk).toBe('SETTLE#mer_1');
    expect(batch.ExpressionAttributeValues).toMatchObject({ ':a': 150_050, ':c': 1, ':cap': 150_050 });
    // The batch shard is the one asked for (0); the entry remembers it (refunds find the batch).
    const n = 0;
    expect(batch.Key!.sk).toBe(`2030-03-11#p${n}`);
    expect(e.batchSk).toBe(batch.Key!.sk);
    // Conditioned on the day's settled round read (none yet): a settlement in between makes the capture read again.
    expect(batch.ConditionExpression).toBe('attribute_not_exists(settleRound) OR settleRound = :round');
    expect(batch.ExpressionAttributeValues![':round']).toBe(0);
    expect(e.stlRound).toBe(1);
    // The day's one due entry on shard 0, named by merchant and day (not by shard).
    expect(batch.UpdateExpression).toContain('dueSk = if_not_exists(dueSk, :dueSk)');
    expect(String(batch.ExpressionAttributeValues![':dueSk'])).toBe('2030-03-10T23:00:00.000Z#settlement#mer_1/2030-03-11');
    // The bank's day counter: the Lagos day of the capture (Friday), not the settlement day.
    const bankDay = items[2]!.Update!;
    expect(bankDay.Key!.sk).toBe(`M#mer_1#${n}`);
    expect(String(bankDay.Key!.pk)).toMatch(/^BREP#bnk_1#2030-03-08#[0-7]$/); // one of the bank-day partitions, at random
    expect(bankDay.ExpressionAttributeValues).toMatchObject({ ':c': 150_050, ':cc': 1, ':r': 0, ':rc': 0 });
    // The merchant's and the provider's volume lists are on the keys-only indexes (a copy at the item's first count only);
    // a counter of before leaves gsi3 / gsi4 at its next count.
    const withProvider = captureItems(bill({ providerId: 'prv_1' }), lagos('2030-03-08T18:00:00'), FRESH_DAY, 0)[2]!.Update!;
    expect(withProvider.UpdateExpression).toMatch(
      /SET .*gsi5pk = :mvol, lsk = :vsk, .*gsi7pk = :pvol REMOVE gsi3pk, gsi3sk, gsi4pk, gsi4sk$/,
    );
    expect(withProvider.ExpressionAttributeValues).toMatchObject({
      ':mvol': 'MVOL#mer_1',
      ':vsk': '2030-03-08#mer_1#bnk_1#0',
      ':pvol': expect.stringMatching(/^PVOL#prv_1#[0-7]$/),
    });
    // The provider's list partition is the item's bank-day partition (a copy never moves between them).
    expect(String(withProvider.ExpressionAttributeValues![':pvol']).split('#')[2]).toBe(String(withProvider.Key!.pk).split('#')[3]);
  });

  it("the day's first capture on another shard also writes shard 0, the day's due entry (amount 0); later captures do not", () => {
    const first = captureItems(bill(), lagos('2030-03-08T18:00:00'), FRESH_DAY, 3);
    expect(first).toHaveLength(4);
    const own = first[1]!.Update!;
    expect(own.Key).toEqual({ pk: 'SETTLE#mer_1#3', sk: '2030-03-11#p3' }); // shard 3: its own partition key
    expect(own.UpdateExpression).not.toContain('dueSk');
    const carrier = first[3]!.Update!;
    expect(carrier.Key).toEqual({ pk: 'SETTLE#mer_1', sk: '2030-03-11#p0' });
    expect(carrier.ExpressionAttributeValues).toMatchObject({ ':a': 0, ':c': 0, ':round': 0 });
    expect(carrier.ConditionExpression).toBe(own.ConditionExpression);
    expect(String(carrier.ExpressionAttributeValues![':dueSk'])).toBe('2030-03-10T23:00:00.000Z#settlement#mer_1/2030-03-11');
    expect(captureItems(bill(), lagos('2030-03-08T18:00:00'), { round: 0, due: true, spread: true }, 3)).toHaveLength(3);
  });

  it('the entry key depends on the billing request and its settlement day only: a replay that settles the same day writes the same key, and the captured bill finds it', () => {
    const a = captureItems(bill(), lagos('2030-03-08T18:00:00'))[0]!.Put!.Item!;
    const b = captureItems(bill(), lagos('2030-03-09T09:00:00'))[0]!.Put!.Item!; // Saturday: settles Monday too
    expect([a.pk, a.sk]).toEqual([b.pk, b.sk]);
    expect(captureEntryKey(bill({ entryInLine: true, settlementDate: '2030-03-11' }))).toEqual({ pk: a.pk, sk: a.sk });
  });

  it('captures of before: in the LEDGER_PARTITIONS keys by billing request (release 4, the bill says which), or in LEDGER#<m>', () => {
    const counts = new Array<number>(LEDGER_PARTITIONS).fill(0);
    for (let i = 0; i < 4000; i++) counts[ledgerPartition(`breq_${i}`)]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(900); // ~1,000 each
    expect(ledgerPks('mer_1')).toEqual(['LEDGER#mer_1', 'LEDGER#mer_1#0', 'LEDGER#mer_1#1', 'LEDGER#mer_1#2', 'LEDGER#mer_1#3']);
    expect(captureEntryKey(bill())).toEqual({ pk: 'LEDGER#mer_1', sk: '2030-03-08T10:00:00.000Z#capture:breq_1' });
    expect(captureEntryKey(bill({ ledgerPartition: 2 })).pk).toBe('LEDGER#mer_1#2');
  });

  it('settles on the first business day after a holiday run (Easter 2030)', () => {
    const batch = captureItems(bill(), lagos('2030-04-18T10:00:00'))[1]!.Update!;
    expect(String(batch.Key!.sk)).toMatch(/^2030-04-23#/);
    expect(captureItems(bill(), lagos('2030-04-18T10:00:00'))[0]!.Put!.Item!.settlementDate).toBe('2030-04-23');
  });

  it('on a spread day, spreads captures over BALANCE_SHARDS batch shards, each shard of the 4 in a partition key of its own', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const key = captureItems(bill(), lagos('2030-03-08T18:00:00'), { round: 0, due: true, spread: true })[1]!.Update!.Key!;
      seen.add(`${key.pk} ${key.sk}`);
    }
    expect([...seen].sort()).toEqual([
      'SETTLE#mer_1 2030-03-11#p0',
      'SETTLE#mer_1#1 2030-03-11#p1',
      'SETTLE#mer_1#2 2030-03-11#p2',
      'SETTLE#mer_1#3 2030-03-11#p3',
    ]);
  });

  it('a batch sk names its partition key: shard n in SETTLE#<m>#<n % 4> (0: SETTLE#<m>); shards from before partitions (no p) in SETTLE#<m>', () => {
    expect(settlePks('mer_1')).toEqual(['SETTLE#mer_1', 'SETTLE#mer_1#1', 'SETTLE#mer_1#2', 'SETTLE#mer_1#3']);
    expect(batchKeyOf('mer_1', '2030-03-11#p2')).toEqual({ pk: 'SETTLE#mer_1#2', sk: '2030-03-11#p2' });
    expect(batchKeyOf('mer_1', '2030-03-11#p4')).toEqual({ pk: 'SETTLE#mer_1', sk: '2030-03-11#p4' });
    expect(batchKeyOf('mer_1', '2030-03-11#p7')).toEqual({ pk: 'SETTLE#mer_1#3', sk: '2030-03-11#p7' });
    expect(batchKeyOf('mer_1', '2030-03-11#2')).toEqual({ pk: 'SETTLE#mer_1', sk: '2030-03-11#2' }); // before partitions
    expect(batchKey('mer_1', '2030-03-11', 1)).toEqual({ pk: 'SETTLE#mer_1#1', sk: '2030-03-11#p1' });
    expect(merchantOfSettlePk('SETTLE#mer_1#3')).toBe('mer_1');
    expect(merchantOfSettlePk('SETTLE#mer_1')).toBe('mer_1');
  });

  it("shard 0 first: a day's money goes to shard 0 (with its due entry) until shard 0 holds SHARD_SPREAD_AFTER captures of the round or another shard exists, then to any shard", () => {
    const shard0 = (count: number) => ({ shard: 0, count });
    expect(isSpread([])).toBe(false);
    expect(isSpread([shard0(SHARD_SPREAD_AFTER - 1)])).toBe(false);
    expect(isSpread([shard0(SHARD_SPREAD_AFTER)])).toBe(true);
    expect(isSpread([shard0(0), { shard: 2, count: 0 }])).toBe(true); // a shard other than 0 exists (an earlier round spread)
    expect(isSpread([{ shard: 3, count: 0 }])).toBe(true);
    for (let i = 0; i < 50; i++) expect(dayShard({ spread: false })).toBe(0);
    const seen = new Set(Array.from({ length: 200 }, () => dayShard({ spread: true })));
    expect([...seen].sort()).toEqual([0, 1, 2, 3]); // BALANCE_SHARDS = 4
    // A fresh day's first capture: shard 0 with the due entry, no second shard write.
    const items = captureItems(bill(), lagos('2030-03-08T18:00:00'));
    expect(items).toHaveLength(3);
    expect(items[1]!.Update!.Key).toEqual({ pk: 'SETTLE#mer_1', sk: '2030-03-11#p0' });
    expect(items[1]!.Update!.UpdateExpression).toContain('dueSk = if_not_exists(dueSk, :dueSk)');
    expect(settlementDayOf([{ ...shard0(SHARD_SPREAD_AFTER), settleRound: 1 } as SettlementBatch])).toEqual({
      round: 1,
      due: false,
      spread: true,
    });
  });

  it('on a day already settled in round 2 that is due again: round 3 pays it, no second due entry', () => {
    const items = captureItems(bill(), lagos('2030-03-08T18:00:00'), { round: 2, due: true, spread: false }, 0);
    const batch = items[1]!.Update!;
    expect(batch.ExpressionAttributeValues![':round']).toBe(2);
    expect(batch.UpdateExpression).not.toContain('dueSk');
    expect(batch.ExpressionAttributeValues).not.toHaveProperty(':dueSk');
    expect((items[0]!.Put!.Item as LedgerEntry).stlRound).toBe(3); // the entry is the line: one round named once
  });

  it("reads a day's state from its shards: the highest settled round, and whether one carries the due entry", () => {
    const shard = (over: Partial<SettlementBatch>) => ({ pk: 'SETTLE#m', sk: '2030-03-11#0', ...over }) as SettlementBatch;
    expect(settlementDayOf([])).toEqual({ round: 0, due: false, spread: false });
    expect(
      settlementDayOf([shard({ shard: 0, settleRound: 1 }), shard({ shard: 0, settleRound: 2, dueSk: 'x' }), shard({ shard: 0 })]),
    ).toEqual({
      round: 2,
      due: true,
      spread: false,
    });
  });

  it('refuses amounts that are not positive integers (a programming error, never a posting)', () => {
    for (const amount of [0, -100, 10.5, Number.NaN]) expect(() => captureItems(bill({ amount }), new Date())).toThrow(RangeError);
  });
});

describe('entry builders', () => {
  it('an entry must move a positive amount between two different accounts', () => {
    const e = { pk: 'LEDGER#m', sk: 's', entryId: 'x', kind: 'refund', merchantId: 'm', currency: 'NGN', postedAt: 'now' } as const;
    expect(() => entryPut({ ...e, debit: 'a', credit: 'a', amount: 1 })).toThrow(RangeError);
    expect(() => entryPut({ ...e, debit: 'a', credit: 'b', amount: 0 })).toThrow(RangeError);
    expect(entryPut({ ...e, debit: 'a', credit: 'b', amount: 1 }).Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
  });
  it('balance shard ADDs carry the settled balance only (the unsettled one is the pending batches)', () => {
    const u = settledAdd('m', -5, 2).Update!;
    expect(u.Key).toEqual({ pk: 'BAL#m', sk: 'S#2' });
    expect(u.UpdateExpression).toBe('ADD #s :s SET #m = :m');
    expect(u.ExpressionAttributeValues).toEqual({ ':s': -5, ':m': 'm' });
  });
});

describe('settlement.completed rides on the settlement record (issue 50)', () => {
  it('the stream consumer derives from the record as written the data the settlement passed; nothing else derives it', () => {
    const record = {
      settlementId: 'stl_mer_1_2030-03-11_1',
      merchantId: 'mer_1',
      businessDate: '2030-03-11',
      round: 1,
      amount: 150_050,
      currency: 'NGN',
      transactionCount: 2,
      refundCount: 1,
      linesComplete: true,
      status: 'completed' as const,
      settledAt: '2030-03-10T23:00:05.000Z',
    };
    const written = settlementRecordPut(record).Put!.Item as Record<string, unknown>;
    const derive = SETTLEMENT_EVENT_DERIVERS[SETTLEMENT_COMPLETED]!;
    expect(derive(written, { count: 3 })).toEqual({
      to: 'mer_1',
      data: {
        settlementId: 'stl_mer_1_2030-03-11_1',
        entityId: 'mer_1',
        settlementDate: '2030-03-11',
        amount: 1500.5,
        currency: 'NGN',
        count: 3,
        settledAt: '2030-03-10T23:00:05.000Z',
      },
    });
    expect(derive(written, { count: 3 })!.data).toEqual(settlementCompletedData(record, 3));
    expect(derive(written, undefined)).toBeUndefined(); // the marker's count is needed
    expect(derive({ ...written, pk: 'BILL#x' }, { count: 3 })).toBeUndefined();
  });

  it('a round that pays something: its record is its ledger entry (one item, unsettled -> settled); a round of 0 has no entry', () => {
    const r = {
      merchantId: 'mer_1',
      date: '2030-03-11',
      round: 2,
      settlementId: 'stl_mer_1_2030-03-11_2',
      amount: 500,
      currency: 'NGN',
      nowIso: 'now',
    };
    const record = {
      settlementId: r.settlementId,
      merchantId: 'mer_1',
      businessDate: r.date,
      round: 2,
      amount: 500,
      currency: 'NGN',
      transactionCount: 1,
      refundCount: 0,
      linesComplete: true,
      status: 'completed' as const,
      settledAt: 'now',
    };
    const put = settlementRecordPut(record, settlementEntry(r)).Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({
      pk: 'STL#stl_mer_1_2030-03-11_2',
      sk: 'STL',
      entryId: 'settlement:mer_1/2030-03-11/2',
      kind: 'settlement',
      debit: 'merchant_unsettled:mer_1',
      credit: 'merchant_settled:mer_1',
      amount: 500,
      settlementDate: '2030-03-11',
      businessDate: '2030-03-11',
      postedAt: 'now',
    });
    expect(() => settlementEntry({ ...r, amount: 0 })).toThrow(RangeError);
    expect(settlementRecordPut({ ...record, amount: 0 }).Put!.Item).not.toHaveProperty('debit');
  });
});
