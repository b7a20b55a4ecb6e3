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
 * Settlement batches (`SETTLE#<m>[#<p>]` / `<date>#p<shard>`: `batchKeyOf`) hold the unsettled amount per
 * settlement day, changed in the SAME transaction as the entry that justifies it: the unsettled
 * balance IS the sum of the pending batches (one copy of that money, not two). The settled
 * balance is kept as sharded counters (`BAL#<m>` / `S#<n>`, attribute `settled`), changed in
 * the transaction of the settlement or refund that moves it. Both always equal the entries
 * (`checkMerchantLedger` recomputes them). A capture picks a random batch shard, so one hot
 * merchant spreads its writes over N items instead of one (docs/decisions/ledger.md;
 * release 3 dropped the capture's `BAL#` `unsettled` ADD, which only repeated the batch's).
 *
 * Entry keys are deterministic per (source, kind): `<ts>#<kind>:<sourceId>` where `ts` is
 * the source's creation time (bill.createdAt, refund.createdAt, the settlement day), and
 * every entry put is conditioned on `attribute_not_exists(pk)`: a replayed capture,
 * settlement or refund can never post twice.
 */
import { createHash, randomInt } from 'node:crypto';
import { config } from '../config';
import { settlementDate } from '../domain/business-days';
import { lagosDate } from '../domain/lagos-time';
import { dueAttributes } from '../platform/due';
import type { BillItem } from '../bills/types';
import { batchGetByKey, getItem, queryAll, queryPartitions, table, type TransactItem } from '../platform/table';
import { dayCounterAdd } from './day-counters';
import { captureLineKey, linesPk, settlementId, settlementKey, type SettlementLine, type SettlementLineFields } from './settlement-views';

export const LEDGER_CURRENCY = 'NGN';

export type LedgerKind = 'capture' | 'settlement' | 'refund' | DisputeMovement;

export const accounts = {
  bank: (bankId: string) => `bank:${bankId}`,
  unsettled: (merchantId: string) => `merchant_unsettled:${merchantId}`,
  settled: (merchantId: string) => `merchant_settled:${merchantId}`,
  /** What a merchant's open disputes hold, until the bank decides (docs/decisions/disputes.md). */
  disputes: (merchantId: string) => `disputes:${merchantId}`,
};

export const ACCOUNT_TYPES = ['bank', 'merchant_unsettled', 'merchant_settled', 'disputes'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** The type and participant of an account key (`accounts`' format); undefined for a key of no known type. */
export function accountOwner(account: string): { type: AccountType; participantId: string } | undefined {
  const at = account.indexOf(':');
  const type = account.slice(0, at) as AccountType;
  return at > 0 && ACCOUNT_TYPES.includes(type) ? { type, participantId: account.slice(at + 1) } : undefined;
}

export interface LedgerEntry {
  pk: string; // LEDGER#<merchantId>; a capture: SLINE#<merchantId>#<day> (its settlement line; LEDGER#<merchantId>#<n> before); a settlement: STL#<id> (its record)
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

/**
 * A capture's entry IS its settlement line (issue 50, docs/decisions/ledger.md "A capture's
 * entry is its settlement line"): one item `SLINE#<m>#<settlement day>` /
 * `<bill createdAt>#capture:<billingRequestId>` with the entry's fields (kind, debit, credit,
 * amount, currency, ...) and the line's (`type: 'payment'`, batchSk, stlRound), where a capture
 * wrote the same facts twice before (2 write units per bill). Its key is a pure function of
 * the bill and the day it settles on, which the captured bill records (`settlementDate`,
 * `entryInLine`); the bill's `status = pending` condition in the same transaction is what
 * keeps a capture from posting twice (a capture the same day also meets the entry's
 * `attribute_not_exists`).
 *
 * Captures stored before stay where they are, and the bill says where:
 * - `ledgerPartition` n (release 4 until issue 50): the entry in `LEDGER#<m>#<n>` (n = a hash
 *   of the billing request id mod `LEDGER_PARTITIONS`), its line a separate item;
 * - neither (before): the entry in `LEDGER#<m>` with every other entry (settlements, refunds,
 *   disputes, which stay there).
 * Readers of a whole ledger read all three (`readMerchantEntries`, the trial balance).
 */
export const LEDGER_PARTITIONS = 4;
export const ledgerPartition = (billingRequestId: string): number =>
  createHash('sha256').update(billingRequestId).digest().readUInt32BE(0) % LEDGER_PARTITIONS;
/** Every `LEDGER#` partition key holding the merchant's entries: its own, then the capture partitions of before. */
export const ledgerPks = (merchantId: string): string[] => [
  ledgerPk(merchantId),
  ...Array.from({ length: LEDGER_PARTITIONS }, (_, n) => `${ledgerPk(merchantId)}#${n}`),
];
/** The capture entry of a bill (one per billing request): its settlement line, or where a capture of before put it. */
export const captureEntryKey = (
  bill: Pick<BillItem, 'merchantId' | 'createdAt' | 'billingRequestId' | 'ledgerPartition' | 'entryInLine' | 'settlementDate'>,
) => {
  if (bill.entryInLine && bill.settlementDate)
    return captureLineKey(bill.merchantId, bill.settlementDate, bill.createdAt, bill.billingRequestId);
  const key = ledgerEntryKey(bill.merchantId, bill.createdAt, ledgerEntryId('capture', bill.billingRequestId));
  return bill.ledgerPartition === undefined ? key : { ...key, pk: `${key.pk}#${bill.ledgerPartition}` };
};
/** Whether a stored item is a ledger entry (a settlement line that is a capture's entry has `debit`; other lines do not). */
export const LEDGER_ENTRY_FILTER = 'attribute_exists(debit)';

/** An entry's fields, checked: a positive integer amount between two different accounts (a programming error otherwise). */
export function checkedEntry<E extends { amount: number; debit: string; credit: string }>(entry: E): E {
  if (!Number.isSafeInteger(entry.amount) || entry.amount <= 0)
    throw new RangeError(`ledger amount must be a positive integer, got ${entry.amount}`);
  if (entry.debit === entry.credit) throw new RangeError('ledger entry debits and credits the same account');
  return entry;
}

/** Put of a new entry; fails (ConditionalCheckFailed) if that entry was ever posted. */
export function entryPut(entry: LedgerEntry): TransactItem {
  return { Put: { TableName: table(), Item: checkedEntry(entry), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * The settlement entry of a round that paid `amount` (> 0): `merchant_unsettled` →
 * `merchant_settled`. Since issue 50 it is on the round's settlement record (`STL#<id>`, one
 * item: settlement-store.ts `settlementRecordPut`); rounds settled before have it in `LEDGER#<m>`.
 */
export const settlementEntry = (a: {
  merchantId: string;
  date: string;
  round: number;
  settlementId: string;
  amount: number;
  currency: string;
  nowIso: string;
}) =>
  checkedEntry({
    entryId: ledgerEntryId('settlement', `${a.merchantId}/${a.date}/${a.round}`),
    kind: 'settlement' as const,
    merchantId: a.merchantId,
    debit: accounts.unsettled(a.merchantId),
    credit: accounts.settled(a.merchantId),
    amount: a.amount,
    currency: a.currency,
    settlementDate: a.date,
    settlementId: a.settlementId,
    postedAt: a.nowIso,
  });
export type SettlementEntryFields = ReturnType<typeof settlementEntry>;

// ---------------------------------------------------------------------------------------
// Balance shards (the settled balance)

export const balancePk = (merchantId: string) => `BAL#${merchantId}`;
export const balanceShardKey = (merchantId: string, shard: number) => ({ pk: balancePk(merchantId), sk: `S#${shard}` });
export const randomShard = () => randomInt(config.balanceShards());

/**
 * ADD to the settled balance on one shard (a negative delta subtracts; a shard may go negative,
 * the sum never does). Shards written before release 3 also carry an `unsettled` count, no
 * longer kept or read: the unsettled balance is the pending batches' (`readBalance`).
 */
export function settledAdd(merchantId: string, delta: number, shard = randomShard()): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: balanceShardKey(merchantId, shard),
      UpdateExpression: 'ADD #s :s SET #m = :m',
      ExpressionAttributeNames: { '#s': 'settled', '#m': 'merchantId' },
      ExpressionAttributeValues: { ':s': delta, ':m': merchantId },
    },
  };
}

export interface Balance {
  unsettled: number;
  settled: number;
}

/** A pending settlement day of a merchant: what its batch shards still hold. */
export interface PendingDay {
  date: string;
  amount: number;
  count: number;
}

/**
 * The merchant's balance (strongly consistent, two Queries of its own partitions): settled is
 * the sum of its balance shards, unsettled the sum of its pending settlement batches, whatever
 * their age (a day the tick has not settled yet still counts), with those pending days in date
 * order. The batch Query reads every batch shard of the merchant's history: about 1 read unit
 * per 13 settlement-day shards, one 1 MB page per ~3,000 (docs/decisions/ledger.md).
 */
export async function readBalance(merchantId: string): Promise<Balance & { pending: PendingDay[] }> {
  const [shards, pending] = await Promise.all([
    queryAll<{ settled?: number }>({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': balancePk(merchantId) },
      ProjectionExpression: 'settled',
      ConsistentRead: true,
    }),
    pendingSettlements(merchantId),
  ]);
  return {
    settled: shards.reduce((sum, s) => sum + (s.settled ?? 0), 0),
    unsettled: pending.reduce((sum, d) => sum + d.amount, 0),
    pending,
  };
}

// ---------------------------------------------------------------------------------------
// Settlement batches

export const SETTLEMENT_KIND = 'settlement';

export interface SettlementBatch {
  pk: string; // SETTLE#<merchantId>[#<partition>] (batchKeyOf)
  sk: string; // <yyyy-mm-dd>#p<shard> (<yyyy-mm-dd>#<shard> before partitions)
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

/**
 * Batch shards are spread over `SETTLE_PARTITIONS` partition keys (DESIGN 10.6): every capture
 * ADDs to one, and in one partition the largest merchant's 500 bills/s would write ~1,130
 * WCU/s. Shard n (sk `<date>#p<n>`) is in `SETTLE#<m>` when n % SETTLE_PARTITIONS is 0 (shard
 * 0, the day's due entry, with it), else in `SETTLE#<m>#<n % SETTLE_PARTITIONS>`. Shards
 * written before partitions (sk `<date>#<n>`, no `p`) are all in `SETTLE#<m>`; an sk names its
 * partition either way (`batchKeyOf`), so the batch a ledger entry or a line names is found
 * from its sk alone, and a day may hold both kinds (they settle together).
 */
export const SETTLE_PARTITIONS = 4;
export const settlePk = (merchantId: string) => `SETTLE#${merchantId}`;
/** The merchant of a batch shard's partition key (`SETTLE#<m>` or `SETTLE#<m>#<p>`). */
export const merchantOfSettlePk = (pk: string) => pk.split('#')[1]!;
/** Every partition key holding the merchant's batch shards. */
export const settlePks = (merchantId: string): string[] => [
  settlePk(merchantId),
  ...Array.from({ length: SETTLE_PARTITIONS - 1 }, (_, i) => `${settlePk(merchantId)}#${i + 1}`),
];
export const batchSk = (date: string, shard: number) => `${date}#p${shard}`;
/** The key of the batch shard an sk names (its partition from its shard; `<date>#<n>` of before partitions: `SETTLE#<m>`). */
export function batchKeyOf(merchantId: string, sk: string): { pk: string; sk: string } {
  const shard = /#p(\d+)$/.exec(sk);
  const p = shard ? Number(shard[1]) % SETTLE_PARTITIONS : 0;
  return { pk: p === 0 ? settlePk(merchantId) : `${settlePk(merchantId)}#${p}`, sk };
}
export const batchKey = (merchantId: string, date: string, shard: number) => batchKeyOf(merchantId, batchSk(date, shard));

/**
 * Every ledger entry of the merchant (strongly consistent; the invariant, ops, tests): its
 * `LEDGER#` partitions; the captures' entries in the settlement lines of every day its batch
 * shards name (a capture adds to a shard of its day in the same transaction); the settlement
 * entries on the records of every round those shards name (`settleRound`: a settlement writes
 * it on every shard of its day). `batches`: the merchant's batch shards, when the caller read them.
 */
export async function readMerchantEntries(
  merchantId: string,
  batches?: readonly Pick<SettlementBatch, 'settlementDate' | 'settleRound'>[],
): Promise<LedgerEntry[]> {
  const rounds = new Map<string, number>();
  for (const b of batches ?? (await readMerchantBatches(merchantId)))
    rounds.set(b.settlementDate, Math.max(rounds.get(b.settlementDate) ?? 0, b.settleRound ?? 0));
  const records = [...rounds].flatMap(([day, last]) =>
    Array.from({ length: last }, (_, i) => settlementKey(settlementId(merchantId, day, i + 1))),
  );
  const [entries, settled] = await Promise.all([
    queryPartitions<LedgerEntry>(
      [...ledgerPks(merchantId), ...[...rounds.keys()].map((d) => linesPk(merchantId, d))],
      { ConsistentRead: true, FilterExpression: LEDGER_ENTRY_FILTER },
      { maxItems: 1_000_000 },
    ),
    batchGetByKey<LedgerEntry>(records),
  ]);
  return [...entries, ...[...settled.values()].filter((r) => r.debit !== undefined)];
}
/** Every settlement batch shard of the merchant, of all its partitions (strongly consistent; the invariant, ops, tests). */
export const readMerchantBatches = (merchantId: string) =>
  queryPartitions<SettlementBatch>(settlePks(merchantId), { ConsistentRead: true }, { maxItems: 1_000_000 });
/** The day's one due entry (on whichever shard the day's first capture wrote). */
export const settlementDueId = (merchantId: string, date: string) => `${merchantId}/${date}`;

/** What a capture reads of its settlement day before it writes (captureItems). */
export interface SettlementDay {
  /** The day's settled round (0 before its first settlement). */
  round: number;
  /** Whether a shard of the day carries the day's due entry already. */
  due: boolean;
  /** Whether the day's money may go to any of its shards (`isSpread`), not only to shard 0. */
  spread: boolean;
}

/**
 * A settlement day's money goes to shard 0 (`DUE_SHARD`, the one with the day's due entry)
 * until shard 0 holds `SHARD_SPREAD_AFTER` captures of the round (issue 50): a merchant-day of
 * a few bills is one shard item, which its first capture writes with the due entry and its
 * settlement settles alone, where random shards cost the day's first capture a second shard
 * write and the settlement a write per shard (docs/decisions/settlement.md "Shard 0 first").
 * Past that, a busy day spreads over the `BALANCE_SHARDS` as before (contention, DESIGN 10.6).
 *
 * Why a settlement that reads a day not spread may leave its other shards unwritten: within
 * a round shard 0's `count` only grows (captures ADD 1; disputes and refunds do not change it)
 * and the settlement's write of shard 0 is conditioned on the count it read, so no capture of
 * that round can have read a count at the threshold (or a shard other than 0, which only such
 * a capture creates) without the settlement reading it too; one that did makes the settlement
 * write every shard (`missingShardPuts`), which cancels a capture racing it into a new one.
 */
export const SHARD_SPREAD_AFTER = 16;
export const isSpread = (shards: readonly Pick<SettlementBatch, 'shard' | 'count'>[]): boolean =>
  shards.some((b) => b.shard !== DUE_SHARD || (b.count ?? 0) >= SHARD_SPREAD_AFTER);
/** The shard a movement into a settlement day takes: shard 0 until the day is spread, then any. */
export const dayShard = (day: Pick<SettlementDay, 'spread'>): number => (day.spread ? randomShard() : DUE_SHARD);

export const settlementDayOf = (shards: readonly SettlementBatch[]): SettlementDay => ({
  round: Math.max(0, ...shards.map((b) => b.settleRound ?? 0)),
  due: shards.some((b) => b.dueSk !== undefined),
  spread: isSpread(shards),
});

/** The state of the settlement day a capture at `at` goes to (one Query of the day's shards). */
export async function readSettlementDay(merchantId: string, at: Date): Promise<SettlementDay> {
  return settlementDayOf(await readDayBatches(merchantId, settlementDate(at).date));
}

/**
 * The transaction items that post a captured (succeeded) billing: 3, or 4 for the day's first
 * capture. `day` is the state of its settlement day as read just before (`readSettlementDay`).
 *
 * 1. the ledger entry (debit `bank:<bankId>`, credit `merchant_unsettled:<merchantId>`), which
 *    is also its settlement line (`SLINE#<m>#<day>`, `type: 'payment'`, `stlRound` = the round
 *    that pays it: `captureEntryKey`), put once (`attribute_not_exists`).
 * 2. the settlement batch shard (`dayShard`: 0 until the day is busy, then random) for the next Nigerian business day: ADD amount and
 *    count; status `pending`; conditioned on the day's settled round read (`settleRound`), so a
 *    settlement that commits in between cancels the capture, which reads again and retries
 *    (it never fails because of settlement). This ADD is also the unsettled balance's.
 * 5. (the day's first capture, when no shard carries it) the day's ONE due entry (`settlement`
 *    at 00:00 Lagos of that day) on shard 0 (`if_not_exists`: a claimed entry keeps its lease;
 *    concurrent first captures write the same item). A capture after the day settled (a late
 *    one) puts it again, due at once, and the next tick settles round 2.
 * 3. the day counter (`BREP#<bankId>#<Lagos day>#<p>`, ledger/day-counters.ts): the bank settlement
 *    report and the volume reports.
 *
 * The caller (bank response) also SETs `settlementDate` (`settlementDate(at).date`) and
 * `entryInLine` on the bill: where its entry is (`captureEntryKey`).
 */
/**
 * The positions in `captureItems` of the settlement batch shard updates (the capture's shard,
 * and shard 0 with the day's due entry): their condition is the day's settled round.
 */
export const CAPTURE_DAY_ITEMS = [1, 3];

export function captureItems(bill: BillItem, at: Date, day: SettlementDay, shard = dayShard(day)): TransactItem[] {
  if (!Number.isSafeInteger(bill.amount) || bill.amount <= 0) throw new RangeError('bill amount must be a positive integer');
  const { date, at: dueAt } = settlementDate(at);
  const sk = batchSk(date, shard);
  const now = at.toISOString();
  const currency = bill.currency ?? LEDGER_CURRENCY;
  const entry: LedgerEntry & SettlementLineFields = {
    ...captureLineKey(bill.merchantId, date, bill.createdAt, bill.billingRequestId),
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
    type: 'payment',
  };
  const due = day.due ? undefined : dueAttributes(SETTLEMENT_KIND, settlementDueId(bill.merchantId, date), dueAt);
  const add = { merchantId: bill.merchantId, date, currency, now, round: day.round };
  const items: TransactItem[] = [
    entryPut(entry),
    batchShardAdd({ ...add, shard, amount: bill.amount, count: 1, due: shard === DUE_SHARD ? due : undefined }),
    dayCounterAdd(bill, { date: lagosDate(at), shard, captured: bill.amount }),
  ];
  // The day's first capture: the day's one due entry, on shard 0 (the same item whichever shard the capture took).
  if (due && shard !== DUE_SHARD) items.push(batchShardAdd({ ...add, shard: DUE_SHARD, amount: 0, count: 0, due }));
  return items;
}

/** The shard of a settlement day that carries the day's due entry. */
export const DUE_SHARD = 0;

/**
 * ADD to a settlement batch shard (status `pending`), conditioned on the day's settled round
 * read; with `due`, the day's due entry too (`if_not_exists`: an entry a tick claimed keeps
 * its lease). No other condition: a capture never fails because of settlement, it reads the
 * day again when a settlement committed in between.
 */
export function batchShardAdd(a: {
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
// Settlement lines (DESIGN 8.8): which captures and refunds a settlement paid.

export function linePut(l: SettlementLineFields & { ts: string }): TransactItem {
  const { ts, ...rest } = l;
  const item: SettlementLine = { pk: linesPk(l.merchantId, l.settlementDate), sk: `${ts}#${l.entryId}`, ...rest };
  return { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** All batch shards of one settlement day, of every partition (strongly consistent). */
export function readDayBatches(merchantId: string, date: string): Promise<SettlementBatch[]> {
  return queryPartitions<SettlementBatch>(settlePks(merchantId), {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
    ExpressionAttributeValues: { ':day': `${date}#` },
    ConsistentRead: true,
  });
}

/**
 * How far back the sandbox's settlement run and `settleDue` for one merchant look for a pending
 * batch. A batch stays pending after its day only while the tick is down; a month covers any
 * realistic outage and bounds the read (the tick itself finds due days on the due index).
 */
export const PENDING_LOOKBACK_DAYS = 31;

/** Every pending batch of the merchant, by day: [{date, amount, count}] ascending. */
async function pendingSettlements(merchantId: string): Promise<PendingDay[]> {
  const batches = await queryPartitions<SettlementBatch>(
    settlePks(merchantId),
    {
      FilterExpression: '#status = :pending',
      ProjectionExpression: 'settlementDate, amount, #count',
      ExpressionAttributeNames: { '#status': 'status', '#count': 'count' },
      ExpressionAttributeValues: { ':pending': 'pending' },
      ConsistentRead: true,
    },
    { maxItems: Number.MAX_SAFE_INTEGER },
  );
  const byDay = new Map<string, PendingDay>();
  for (const b of batches) {
    const d = byDay.get(b.settlementDate) ?? { date: b.settlementDate, amount: 0, count: 0 };
    d.amount += b.amount ?? 0;
    d.count += b.count ?? 0;
    byDay.set(b.settlementDate, d);
  }
  return [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** What a dispute does to the money: opened, won by the merchant (reversed), lost (docs/decisions/disputes.md; the items: ledger/dispute-money.ts). */
export type DisputeMovement = 'dispute' | 'dispute_reversal' | 'dispute_lost';

export const getLedgerEntry = (key: { pk: string; sk: string }) => getItem<LedgerEntry>(key);
