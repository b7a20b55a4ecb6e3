/**
 * Money (docs/billing-design.md): double-entry ledger entries, sharded balance
 * counters and settlement batches. Amounts are integer minor units (kobo).
 *
 * Accounts: `bank:<bankId>` (what a customer's bank owes us / we pay back),
 * `merchant_unsettled:<merchantId>` and `merchant_settled:<merchantId>` (what we owe the
 * merchant, before and after settlement). Every entry moves one amount from its debit
 * account to its credit account, so debits equal credits by construction.
 *
 * | movement   | debit                       | credit                      |
 * |------------|-----------------------------|-----------------------------|
 * | capture    | bank:<bankId>               | merchant_unsettled:<m>      |
 * | settlement | merchant_unsettled:<m>      | merchant_settled:<m>        |
 * | refund     | merchant_unsettled or _settled:<m> | bank:<bankId>        |
 * | dispute    | merchant_unsettled:<m>      | disputes:<m>                |
 * | dispute won (reversal) | disputes:<m>    | merchant_unsettled:<m>      |
 * | dispute lost | disputes:<m>              | bank:<bankId>               |
 *
 * Balances are kept as sharded counters (`BAL#<m>` / `S#<n>`) that change in the SAME
 * transaction as the entry that justifies them, so they always equal the entries
 * (`checkMerchantLedger` recomputes them). Settlement batches (`SETTLE#<m>` /
 * `<date>#<shard>`) hold the unsettled amount per settlement day; a capture adds to the
 * batch shard of the balance shard it picked, so one hot merchant spreads its writes over
 * N items instead of one (docs/decisions/ledger.md).
 *
 * Entry keys are deterministic per (source, kind): `<ts>#<kind>:<sourceId>` where `ts` is
 * the source's creation time (bill.createdAt, refund.createdAt, the settlement day), and
 * every entry put is conditioned on `attribute_not_exists(pk)`: a replayed capture,
 * settlement or refund can never post twice.
 */
import { randomInt } from 'node:crypto';
import { config } from '../config';
import { settlementDate } from '../domain/business-days';
import { addDays, lagosDate, startOfLagosDay } from '../domain/lagos-time';
import { dueAttributes } from '../platform/due';
import type { BillItem } from '../bills/types';
import { getItem, queryAll, scanPages, table, type TransactItem } from '../platform/table';
import { dayCounterAdd } from './day-counters';
import { linesPk, type SettlementLine, type SettlementLineFields } from './settlement-views';

export const LEDGER_CURRENCY = 'NGN';

export type LedgerKind = 'capture' | 'settlement' | 'refund' | DisputeMovement;

export const accounts = {
  bank: (bankId: string) => `bank:${bankId}`,
  unsettled: (merchantId: string) => `merchant_unsettled:${merchantId}`,
  settled: (merchantId: string) => `merchant_settled:${merchantId}`,
  /** What a merchant's open disputes hold, until the bank decides (docs/decisions/disputes.md). */
  disputes: (merchantId: string) => `disputes:${merchantId}`,
};

export interface LedgerEntry {
  pk: string; // LEDGER#<merchantId>
  sk: string; // <ISO ts>#<entryId>
  entryId: string; // <kind>:<sourceId>
  kind: LedgerKind;
  merchantId: string;
  debit: string;
  credit: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  reference?: string;
  billingRequestId?: string;
  refundId?: string;
  disputeId?: string;
  /** capture: the day its funds settle; settlement: the day settled. */
  settlementDate?: string;
  /** capture: the settlement batch item (sk) the amount went to; refunds find it here. */
  batchSk?: string;
  /** capture: the round of its day's settlement that pays it (its line says the same). */
  stlRound?: number;
  /** The wall-clock (or tick) time the entry was written. */
  postedAt: string;
  [extra: string]: unknown;
}

export const ledgerPk = (merchantId: string) => `LEDGER#${merchantId}`;
export const ledgerEntryId = (kind: LedgerKind, sourceId: string) => `${kind}:${sourceId}`;
export const ledgerEntryKey = (merchantId: string, ts: string, entryId: string) => ({
  pk: ledgerPk(merchantId),
  sk: `${ts}#${entryId}`,
});
/** The capture entry of a bill (deterministic: one per billing request). */
export const captureEntryKey = (bill: Pick<BillItem, 'merchantId' | 'createdAt' | 'billingRequestId'>) =>
  ledgerEntryKey(bill.merchantId, bill.createdAt, ledgerEntryId('capture', bill.billingRequestId));

/** Put of a new entry; fails (ConditionalCheckFailed) if that entry was ever posted. */
export function entryPut(entry: LedgerEntry): TransactItem {
  if (!Number.isSafeInteger(entry.amount) || entry.amount <= 0)
    throw new RangeError(`ledger amount must be a positive integer, got ${entry.amount}`);
  if (entry.debit === entry.credit) throw new RangeError('ledger entry debits and credits the same account');
  return { Put: { TableName: table(), Item: entry, ConditionExpression: 'attribute_not_exists(pk)' } };
}

// ---------------------------------------------------------------------------------------
// Balance shards

export const balancePk = (merchantId: string) => `BAL#${merchantId}`;
export const balanceShardKey = (merchantId: string, shard: number) => ({ pk: balancePk(merchantId), sk: `S#${shard}` });
export const randomShard = () => randomInt(config.balanceShards());

/** ADD to one balance shard (negative deltas subtract; a shard may go negative, the sum never does). */
export function balanceAdd(merchantId: string, delta: { unsettled?: number; settled?: number }, shard = randomShard()): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: balanceShardKey(merchantId, shard),
      UpdateExpression: 'ADD #u :u, #s :s SET #m = :m',
      ExpressionAttributeNames: { '#u': 'unsettled', '#s': 'settled', '#m': 'merchantId' },
      ExpressionAttributeValues: { ':u': delta.unsettled ?? 0, ':s': delta.settled ?? 0, ':m': merchantId },
    },
  };
}

export interface Balance {
  unsettled: number;
  settled: number;
}

/** The merchant's balance: the sum of its shards (one partition, strongly consistent). */
export async function readBalance(merchantId: string): Promise<Balance> {
  const shards = await queryAll<{ unsettled?: number; settled?: number }>({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': balancePk(merchantId) },
    ConsistentRead: true,
  });
  return shards.reduce<Balance>((b, s) => ({ unsettled: b.unsettled + (s.unsettled ?? 0), settled: b.settled + (s.settled ?? 0) }), {
    unsettled: 0,
    settled: 0,
  });
}

// ---------------------------------------------------------------------------------------
// Settlement batches

export const SETTLEMENT_KIND = 'settlement';

export interface SettlementBatch {
  pk: string; // SETTLE#<merchantId>
  sk: string; // <yyyy-mm-dd>#<shard>
  merchantId: string;
  settlementDate: string;
  shard: number;
  currency: string;
  status: 'pending' | 'settled';
  /** Minor units still to settle (captures − refunds taken from it − settled). */
  amount: number;
  /** Captures added since the last settlement round. */
  count: number;
  capturedAmount: number;
  refundedAmount?: number;
  settledAmount?: number;
  /** The day's last settled round: a settlement writes it on every shard of the day (0: none yet). */
  settleRound?: number;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export const settlePk = (merchantId: string) => `SETTLE#${merchantId}`;
export const batchSk = (date: string, shard: number) => `${date}#${shard}`;
export const batchKey = (merchantId: string, date: string, shard: number) => ({ pk: settlePk(merchantId), sk: batchSk(date, shard) });
/** The day's one due entry (on whichever shard the day's first capture wrote). */
export const settlementDueId = (merchantId: string, date: string) => `${merchantId}/${date}`;

/** What a capture reads of its settlement day before it writes (captureItems). */
export interface SettlementDay {
  /** The day's settled round (0 before its first settlement). */
  round: number;
  /** Whether a shard of the day carries the day's due entry already. */
  due: boolean;
}

export const settlementDayOf = (shards: readonly SettlementBatch[]): SettlementDay => ({
  round: Math.max(0, ...shards.map((b) => b.settleRound ?? 0)),
  due: shards.some((b) => b.dueSk !== undefined),
});

/** The state of the settlement day a capture at `at` goes to (one Query of the day's shards). */
export async function readSettlementDay(merchantId: string, at: Date): Promise<SettlementDay> {
  return settlementDayOf(await readDayBatches(merchantId, settlementDate(at).date));
}

/**
 * The transaction items that post a captured (succeeded) billing: 5, or 6 for the day's first
 * capture. `day` is the state of its settlement day as read just before (`readSettlementDay`).
 *
 * 1. ledger entry put (debit `bank:<bankId>`, credit `merchant_unsettled:<merchantId>`),
 *    conditioned on `attribute_not_exists` of its deterministic key: a replay cancels.
 * 2. ADD `unsettled` on a random balance shard.
 * 3. the settlement batch shard for the next Nigerian business day: ADD amount and count;
 *    status `pending`; conditioned on the day's settled round read (`settleRound`), so a
 *    settlement that commits in between cancels the capture, which reads again and retries
 *    (it never fails because of settlement).
 * 6. (the day's first capture, when no shard carries it) the day's ONE due entry (`settlement`
 *    at 00:00 Lagos of that day) on shard 0 (`if_not_exists`: a claimed entry keeps its lease;
 *    concurrent first captures write the same item). A capture after the day settled (a late
 *    one) puts it again, due at once, and the next tick settles round 2.
 * 4. its settlement line (`SLINE#<m>#<day>`), written once: `stlRound` = the round that pays it.
 * 5. the day counter (`BREP#<bankId>#<Lagos day>#<p>`, ledger/day-counters.ts): the bank settlement
 *    report and the volume reports.
 *
 * The caller (bank response) also SETs `settlementDate` on the bill (`settlementDate(at).date`).
 */
/**
 * The positions in `captureItems` of the settlement batch shard updates (the capture's shard,
 * and shard 0 with the day's due entry): their condition is the day's settled round.
 */
export const CAPTURE_DAY_ITEMS = [2, 5];

export function captureItems(bill: BillItem, at: Date, day: SettlementDay, shard = randomShard()): TransactItem[] {
  if (!Number.isSafeInteger(bill.amount) || bill.amount <= 0) throw new RangeError('bill amount must be a positive integer');
  const { date, at: dueAt } = settlementDate(at);
  const sk = batchSk(date, shard);
  const now = at.toISOString();
  const currency = bill.currency ?? LEDGER_CURRENCY;
  const entry: LedgerEntry = {
    ...captureEntryKey(bill),
    entryId: ledgerEntryId('capture', bill.billingRequestId),
    kind: 'capture',
    merchantId: bill.merchantId,
    debit: accounts.bank(bill.bankId),
    credit: accounts.unsettled(bill.merchantId),
    amount: bill.amount,
    currency,
    reference: bill.reference,
    billingRequestId: bill.billingRequestId,
    settlementDate: date,
    batchSk: sk,
    stlRound: day.round + 1,
    postedAt: now,
  };
  const due = day.due ? undefined : dueAttributes(SETTLEMENT_KIND, settlementDueId(bill.merchantId, date), dueAt);
  const add = { merchantId: bill.merchantId, date, currency, now, round: day.round };
  const items: TransactItem[] = [
    entryPut(entry),
    balanceAdd(bill.merchantId, { unsettled: bill.amount }, shard),
    batchShardAdd({ ...add, shard, amount: bill.amount, count: 1, due: shard === DUE_SHARD ? due : undefined }),
    linePut({
      merchantId: bill.merchantId,
      settlementDate: date,
      batchSk: sk,
      ts: bill.createdAt,
      entryId: entry.entryId,
      type: 'payment',
      amount: bill.amount,
      reference: bill.reference,
      billingRequestId: bill.billingRequestId,
      stlRound: day.round + 1,
      postedAt: now,
    }),
    dayCounterAdd(bill, { date: lagosDate(at), shard, captured: bill.amount }),
  ];
  // The day's first capture: the day's one due entry, on shard 0 (the same item whichever shard the capture took).
  if (due && shard !== DUE_SHARD) items.push(batchShardAdd({ ...add, shard: DUE_SHARD, amount: 0, count: 0, due }));
  return items;
}

/** The shard of a settlement day that carries the day's due entry. */
const DUE_SHARD = 0;

/**
 * ADD to a settlement batch shard (status `pending`), conditioned on the day's settled round
 * read; with `due`, the day's due entry too (`if_not_exists`: an entry a tick claimed keeps
 * its lease). No other condition: a capture never fails because of settlement, it reads the
 * day again when a settlement committed in between.
 */
function batchShardAdd(a: {
  merchantId: string;
  date: string;
  shard: number;
  currency: string;
  now: string;
  round: number;
  amount: number;
  count: number;
  due: { duePk: string; dueSk: string } | undefined;
}): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: batchKey(a.merchantId, a.date, a.shard),
      UpdateExpression:
        'ADD #amount :a, #count :c, #captured :cap ' +
        'SET #status = :pending, #m = :m, #date = :date, #shard = :shard, #cur = :cur, #created = if_not_exists(#created, :now), #updated = :now, ' +
        `settleRound = if_not_exists(settleRound, :round)${a.due ? ', duePk = if_not_exists(duePk, :duePk), dueSk = if_not_exists(dueSk, :dueSk)' : ''}`,
      ConditionExpression: 'attribute_not_exists(settleRound) OR settleRound = :round',
      ExpressionAttributeNames: {
        '#amount': 'amount',
        '#count': 'count',
        '#captured': 'capturedAmount',
        '#status': 'status',
        '#m': 'merchantId',
        '#date': 'settlementDate',
        '#shard': 'shard',
        '#cur': 'currency',
        '#created': 'createdAt',
        '#updated': 'updatedAt',
      },
      ExpressionAttributeValues: {
        ':a': a.amount,
        ':c': a.count,
        ':cap': a.count > 0 ? a.amount : 0,
        ':pending': 'pending',
        ':m': a.merchantId,
        ':date': a.date,
        ':shard': a.shard,
        ':cur': a.currency,
        ':now': a.now,
        ':round': a.round,
        ...(a.due ? { ':duePk': a.due.duePk, ':dueSk': a.due.dueSk } : {}),
      },
    },
  };
}

// ---------------------------------------------------------------------------------------
// Disputes (DESIGN 9.4, docs/decisions/disputes.md): THE money of a dispute.

/** What a dispute does to the money: opened, won by the merchant (reversed), lost. */
export type DisputeMovement = 'dispute' | 'dispute_reversal' | 'dispute_lost';

/** The dispute fields the ledger needs. */
export interface DisputeMoney {
  disputeId: string;
  merchantId: string;
  merchantName?: string;
  providerId?: string;
  bankId: string;
  reference: string;
  billingRequestId: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  /** The dispute's creation time: the entries' key timestamp (deterministic per movement). */
  createdAt: string;
}

/**
 * The transaction items that move a dispute's money, written in the SAME transaction as the
 * dispute's change (one entry per movement and dispute, deterministic key: a replay cancels):
 *
 * - `dispute` (opened): merchant_unsettled → disputes; the balance shard ADD −amount; the
 *   batch of the merchant's next settlement day ADD −amount (it may go below zero) and a
 *   `dispute` line there: the next settlement pays that much less.
 * - `dispute_reversal` (won): disputes → merchant_unsettled, the same three the other way
 *   (a `dispute_reversal` line).
 * - `dispute_lost`: disputes → bank:<bankId> (the customer's bank keeps it); the merchant's
 *   balance does not change again.
 *
 * Opening and reversal also count on the day counter (`dayCounterAdd`, ledger/day-counters.ts):
 * `disputed` +amount when opened, −amount when reversed (the volume report's `disputed`).
 */
export function disputeMoneyItems(d: DisputeMoney, movement: DisputeMovement, at: Date, day: SettlementDay): TransactItem[] {
  if (!Number.isSafeInteger(d.amount) || d.amount <= 0) throw new RangeError('dispute amount must be a positive integer');
  const nowIso = at.toISOString();
  const entryId = ledgerEntryId(movement, d.disputeId);
  const common = {
    ...ledgerEntryKey(d.merchantId, d.createdAt, entryId),
    entryId,
    kind: movement,
    merchantId: d.merchantId,
    amount: d.amount,
    currency: d.currency,
    reference: d.reference,
    billingRequestId: d.billingRequestId,
    disputeId: d.disputeId,
    postedAt: nowIso,
  };
  if (movement === 'dispute_lost')
    return [entryPut({ ...common, debit: accounts.disputes(d.merchantId), credit: accounts.bank(d.bankId) })];
  const opened = movement === 'dispute';
  const { date, at: dueAt } = settlementDate(at);
  const shard = randomShard();
  const signed = opened ? -d.amount : d.amount;
  return [
    entryPut({
      ...common,
      debit: opened ? accounts.unsettled(d.merchantId) : accounts.disputes(d.merchantId),
      credit: opened ? accounts.disputes(d.merchantId) : accounts.unsettled(d.merchantId),
      settlementDate: date,
      batchSk: batchSk(date, shard),
      stlRound: day.round + 1,
    }),
    balanceAdd(d.merchantId, { unsettled: signed }, shard),
    dayCounterAdd(d, { date: lagosDate(at), shard, disputed: -signed }),
    ...dayMoveItems({
      merchantId: d.merchantId,
      date,
      dueAt,
      day,
      shard,
      amount: signed,
      currency: d.currency,
      now: nowIso,
      line: {
        ts: d.createdAt,
        entryId,
        type: movement,
        reference: d.reference,
        billingRequestId: d.billingRequestId,
        disputeId: d.disputeId,
      },
    }),
  ];
}

/**
 * A signed amount that is not a capture moved into a settlement day (a dispute, its reversal,
 * a negative net brought forward), the way a capture moves its own (captureItems): the batch
 * shard ADD conditioned on the day's settled round read (`day`), the day's due entry when it
 * has none yet, and the line naming the round that pays it.
 */
function dayMoveItems(a: {
  merchantId: string;
  date: string;
  dueAt: Date;
  day: SettlementDay;
  shard: number;
  /** Signed minor units. */
  amount: number;
  currency: string;
  now: string;
  line: Pick<SettlementLineFields, 'entryId' | 'type' | 'reference' | 'billingRequestId' | 'disputeId'> & { ts: string };
}): TransactItem[] {
  const due = a.day.due ? undefined : dueAttributes(SETTLEMENT_KIND, settlementDueId(a.merchantId, a.date), a.dueAt);
  const add = { merchantId: a.merchantId, date: a.date, currency: a.currency, now: a.now, round: a.day.round };
  const items: TransactItem[] = [
    batchShardAdd({ ...add, shard: a.shard, amount: a.amount, count: 0, due: a.shard === DUE_SHARD ? due : undefined }),
    linePut({
      merchantId: a.merchantId,
      settlementDate: a.date,
      batchSk: batchSk(a.date, a.shard),
      amount: Math.abs(a.amount),
      stlRound: a.day.round + 1,
      postedAt: a.now,
      ...a.line,
    }),
  ];
  if (due && a.shard !== DUE_SHARD) items.push(batchShardAdd({ ...add, shard: DUE_SHARD, amount: 0, count: 0, due }));
  return items;
}

/**
 * A settlement day whose net is negative (disputes beyond its payments) pays nothing and
 * carries the deficit into the merchant's next settlement day, in the settlement's own
 * transaction: a `carried_forward` line (+deficit) in the settling day, stamped with its
 * settlement (its lines then sum to 0), and on the next business day a `brought_forward`
 * line (−deficit) with its batch ADD. No ledger entry: the money stays in merchant_unsettled
 * (below zero) and the pending batches still sum to it.
 */
export function carryItems(a: {
  merchantId: string;
  date: string;
  settlementId: string;
  /** The round settling `date` (its carried_forward line is one of that round's lines). */
  round: number;
  /** Minor units, > 0: the negative net of the day. */
  deficit: number;
  currency: string;
  /** A pending batch shard of the settling day (the line's shard). */
  fromBatchSk: string;
  /** The next business day, as read (its settled round and due entry). */
  next: { date: string; day: SettlementDay };
  nowIso: string;
}): TransactItem[] {
  const ts = startOfLagosDay(a.date).toISOString();
  const line = { merchantId: a.merchantId, amount: a.deficit, reference: a.settlementId, billingRequestId: '', postedAt: a.nowIso };
  return [
    linePut({
      ...line,
      ts,
      settlementDate: a.date,
      batchSk: a.fromBatchSk,
      entryId: `carried_forward:${a.settlementId}`,
      type: 'carried_forward',
      stlRound: a.round,
    }),
    ...dayMoveItems({
      merchantId: a.merchantId,
      date: a.next.date,
      dueAt: startOfLagosDay(a.next.date),
      day: a.next.day,
      shard: randomShard(),
      amount: -a.deficit,
      currency: a.currency,
      now: a.nowIso,
      line: { ts, entryId: `brought_forward:${a.settlementId}`, type: 'brought_forward', reference: a.settlementId, billingRequestId: '' },
    }),
  ];
}

// ---------------------------------------------------------------------------------------
// Settlement lines (DESIGN 8.8): which captures and refunds a settlement paid.

export function linePut(l: SettlementLineFields & { ts: string }): TransactItem {
  const { ts, ...rest } = l;
  const item: SettlementLine = { pk: linesPk(l.merchantId, l.settlementDate), sk: `${ts}#${l.entryId}`, ...rest };
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** All batch shards of one settlement day (strongly consistent). */
export function readDayBatches(merchantId: string, date: string): Promise<SettlementBatch[]> {
  return queryAll<SettlementBatch>({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
    ExpressionAttributeValues: { ':pk': settlePk(merchantId), ':day': `${date}#` },
    ConsistentRead: true,
  });
}

/**
 * How far back the balance looks for a pending batch. A batch stays pending after its day
 * only while the tick is down; a month covers any realistic outage and bounds the read.
 */
export const PENDING_LOOKBACK_DAYS = 31;

/** Pending batches from `PENDING_LOOKBACK_DAYS` before `now` on, by day: [{date, amount, count}] ascending. */
export async function pendingSettlements(merchantId: string, now: Date): Promise<{ date: string; amount: number; count: number }[]> {
  const from = addDays(lagosDate(now), -PENDING_LOOKBACK_DAYS);
  const batches = await queryAll<SettlementBatch>({
    KeyConditionExpression: 'pk = :pk AND sk >= :from',
    FilterExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': settlePk(merchantId), ':from': from, ':pending': 'pending' },
    ConsistentRead: true,
  });
  const byDay = new Map<string, { date: string; amount: number; count: number }>();
  for (const b of batches) {
    const d = byDay.get(b.settlementDate) ?? { date: b.settlementDate, amount: 0, count: 0 };
    d.amount += b.amount ?? 0;
    d.count += b.count ?? 0;
    byDay.set(b.settlementDate, d);
  }
  return [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

// ---------------------------------------------------------------------------------------
// Invariant

export interface LedgerCheck {
  merchantId: string;
  /** Recomputed from the ledger entries. */
  entries: Balance;
  /** Sum of the balance shards. */
  shards: Balance;
  /** Sum of pending batch amounts (must equal the unsettled balance). */
  pendingBatches: number;
  entryCount: number;
  /** Per account: Σ debits − Σ credits of this merchant's entries. */
  net: Record<string, number>;
  problems: string[];
}

/**
 * Recomputes the merchant's balances from its ledger entries and compares them with the
 * shards and the pending settlement batches; checks every entry is well formed and that
 * no balance is negative. Read-only (tests and ops).
 */
export async function checkMerchantLedger(merchantId: string): Promise<LedgerCheck> {
  const [entries, shards, batches] = await Promise.all([
    queryAll<LedgerEntry>(
      { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': ledgerPk(merchantId) }, ConsistentRead: true },
      1_000_000,
    ),
    readBalance(merchantId),
    queryAll<SettlementBatch>(
      { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': settlePk(merchantId) }, ConsistentRead: true },
      1_000_000,
    ),
  ]);
  const problems: string[] = [];
  const unsettledAcct = accounts.unsettled(merchantId);
  const settledAcct = accounts.settled(merchantId);
  const disputesAcct = accounts.disputes(merchantId);
  let disputesHeld = 0;
  const sums: Balance = { unsettled: 0, settled: 0 };
  const ids = new Set<string>();
  const net: Record<string, number> = {};
  for (const e of entries) {
    net[e.debit] = (net[e.debit] ?? 0) + e.amount;
    net[e.credit] = (net[e.credit] ?? 0) - e.amount;
    if (!Number.isSafeInteger(e.amount) || e.amount <= 0) problems.push(`entry ${e.entryId}: bad amount ${e.amount}`);
    if (e.debit === e.credit) problems.push(`entry ${e.entryId}: debit equals credit`);
    if (ids.has(e.entryId)) problems.push(`entry ${e.entryId}: posted twice`);
    ids.add(e.entryId);
    for (const [acct, sign] of [
      [e.credit, 1],
      [e.debit, -1],
    ] as const) {
      if (acct === unsettledAcct) sums.unsettled += sign * e.amount;
      else if (acct === settledAcct) sums.settled += sign * e.amount;
      else if (acct === disputesAcct) disputesHeld += sign * e.amount;
      else if (!acct.startsWith('bank:')) problems.push(`entry ${e.entryId}: unknown account ${acct}`);
    }
  }
  const pendingBatches = batches.filter((b) => b.status === 'pending').reduce((s, b) => s + (b.amount ?? 0), 0);
  if (sums.unsettled !== shards.unsettled) problems.push(`unsettled: entries ${sums.unsettled} != shards ${shards.unsettled}`);
  if (sums.settled !== shards.settled) problems.push(`settled: entries ${sums.settled} != shards ${shards.settled}`);
  if (pendingBatches !== sums.unsettled) problems.push(`unsettled ${sums.unsettled} != pending batches ${pendingBatches}`);
  // A dispute may take a balance (and its settlement day) below zero; nothing else may.
  const disputed = entries.some((e) => e.kind === 'dispute');
  if (!disputed && (sums.unsettled < 0 || sums.settled < 0)) problems.push(`negative balance ${JSON.stringify(sums)}`);
  if (!disputed) for (const b of batches) if ((b.amount ?? 0) < 0) problems.push(`batch ${b.sk}: negative amount ${b.amount}`);
  if (disputesHeld < 0) problems.push(`disputes account holds ${disputesHeld}`);
  return { merchantId, entries: sums, shards, pendingBatches, entryCount: entries.length, net, problems };
}

export interface LedgerReport {
  merchants: LedgerCheck[];
  /** Σ debits − Σ credits over every entry and account: 0 when every entry is double-sided. */
  imbalance: number;
  /** Per bank account: Σ debits − Σ credits (what each bank owes us, net of refunds). */
  banks: Record<string, number>;
  problems: string[];
}

/** Every merchant with money items in the table (a Scan: tests and ops only). */
export async function moneyMerchants(): Promise<string[]> {
  const ids = new Set<string>();
  await scanPages(
    {
      ProjectionExpression: 'pk',
      FilterExpression: 'begins_with(pk, :l) OR begins_with(pk, :b) OR begins_with(pk, :s)',
      ExpressionAttributeValues: { ':l': 'LEDGER#', ':b': 'BAL#', ':s': 'SETTLE#' },
      ConsistentRead: true,
    },
    (page) => {
      for (const it of page) ids.add(String(it.pk).slice(String(it.pk).indexOf('#') + 1));
    },
  );
  return [...ids].sort();
}

/** The ledger invariant over every merchant (tests run it after each scenario). */
export async function checkLedger(merchantIds?: string[]): Promise<LedgerReport> {
  const ids = merchantIds ?? (await moneyMerchants());
  const merchants = await Promise.all(ids.map(checkMerchantLedger));
  const net = new Map<string, number>();
  for (const m of merchants) for (const [acct, v] of Object.entries(m.net)) net.set(acct, (net.get(acct) ?? 0) + v);
  const banks: Record<string, number> = {};
  let imbalance = 0;
  let merchantTotal = 0;
  for (const [acct, v] of net) {
    imbalance += v;
    if (acct.startsWith('bank:')) banks[acct] = v;
    else merchantTotal -= v;
  }
  const problems = merchants.flatMap((m) => m.problems.map((p) => `${m.merchantId}: ${p}`));
  if (imbalance !== 0) problems.push(`debits and credits differ by ${imbalance}`);
  const bankTotal = Object.values(banks).reduce((s, v) => s + v, 0);
  // What the merchants are owed equals what the banks owe: nothing created or lost.
  if (merchantTotal !== bankTotal) problems.push(`merchants are owed ${merchantTotal}, banks owe ${bankTotal}`);
  return { merchants, imbalance, banks, problems };
}

/** A ledger entry by key (refunds read a bill's capture entry). */
export const getLedgerEntry = (key: { pk: string; sk: string }) => getItem<LedgerEntry>(key);
