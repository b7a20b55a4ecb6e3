/**
 * Due kind `settlement` (docs/decisions/settlement.md): at 00:00 Lagos of a settlement day,
 * the merchant's funds of that day move from unsettled to settled. One due entry and one job
 * per merchant-day.
 *
 * A day's batch is spread over shard items (`SETTLE#<m>[#<p>]` / `<date>#p<n>`, see
 * ledger/store.ts); the day's first capture puts the day's due entry on its shard. The job
 * settles EVERY pending shard of the day in one transaction: one ledger entry
 * (`merchant_unsettled` → `merchant_settled`), one settled-balance shard ADD, each pending shard
 * marked `settled` (conditioned on the amount and count read, status `pending`, and the due
 * attributes read — the lease for the claimed one), every other shard of the day (and, on a
 * day spread over its shards, each of the `BALANCE_SHARDS` not written yet: store.ts
 * `isSpread`) given the new round, the record, and one
 * `settlement.completed` event to the merchant (+ provider). The lines are not written: each
 * already names its round. A capture or refund that lands between the read and the write
 * cancels the transaction, which re-reads and tries again; a capture after it re-opens its
 * shard with a new due entry, which settles on the next tick (a second round).
 */
import { config } from '../config';
import { commit } from '../events/outbox';
import { nextBusinessDay } from '../domain/business-days';
import { addDays, lagosDate } from '../domain/lagos-time';
import { logger } from '../platform/log';
import { carryItems } from './dispute-money';
import {
  settledAdd,
  settlementEntry,
  batchKey,
  batchSk,
  LEDGER_CURRENCY,
  PENDING_LOOKBACK_DAYS,
  readDayBatches,
  settlementDayOf,
  isSpread,
  SETTLEMENT_KIND,
  settlePks,
  batchKeyOf,
  merchantOfSettlePk,
  type SettlementBatch,
} from './store';
import { isTransactionCancelled, queryPartitions, table, type TransactItem } from '../platform/table';
import { parseDueSk, queryDue, releaseClaim, type DueJob } from '../platform/due';
import { roundLineSums, runSettlementLines, settlementRecordPut, type LineSums } from './settlement-store';
import { getSettlement, settlementCompletedData, settlementId, SETTLEMENT_COMPLETED } from './settlement-views';
import { conflictBackoff } from '../platform/retry';

export { settlementId } from './settlement-views';

export interface SettlementResult {
  settlementId: string;
  merchantId: string;
  settlementDate: string;
  /** Minor units moved to settled in this round. */
  amount: number;
  count: number;
  round: number;
}

const MAX_ATTEMPTS = 8;

/**
 * Settles every pending batch shard of (merchant, day). With `lease` (the tick's claim of
 * one shard), only while that claim holds. Returns the round settled, or undefined when
 * there was nothing pending (or the claim was lost: someone else settled).
 */
export async function settleDay(
  merchantId: string,
  date: string,
  now: Date,
  lease?: { sk: string; leasedSk: string },
): Promise<SettlementResult | undefined> {
  const nowIso = now.toISOString();
  for (let attempt = 1; ; attempt++) {
    const shards = await readDayBatches(merchantId, date);
    if (lease) {
      const mine = shards.find((b) => b.sk === lease.sk);
      if (!mine || mine.dueSk !== lease.leasedSk) return undefined; // claim lost: another run finished or re-claimed it
    }
    const pending = shards.filter((b) => b.status === 'pending');
    if (pending.length === 0) {
      // Nothing to pay (a due entry left on a settled shard): take it off the index.
      if (lease) await releaseClaim(batchKeyOf(merchantId, lease.sk), lease.leasedSk);
      return undefined;
    }
    const amount = pending.reduce((s, b) => s + (b.amount ?? 0), 0);
    const count = pending.reduce((s, b) => s + (b.count ?? 0), 0);
    const round = Math.max(0, ...shards.map((b) => b.settleRound ?? 0)) + 1;
    const id = settlementId(merchantId, date, round);
    const currency = pending[0]!.currency ?? LEDGER_CURRENCY;
    // Which captures and refunds this round pays: the day's lines naming it.
    const sums = await roundLineSums(merchantId, date, id, round);
    const linesComplete = linesMatch(pending, sums);
    if (!linesComplete) {
      if (linesExceed(pending, sums) && attempt < MAX_ATTEMPTS) {
        // A capture or refund landed after the shards were read: read again.
        await conflictBackoff(attempt, { base: 15, cap: 120, jitter: 1 });
        continue;
      }
      // Captures posted before lines existed: the money still settles; the record says its lines are incomplete.
      logger.error('settlement lines do not match the batch', { merchantId, settlementDate: date, round });
    }
    const items: TransactItem[] = [
      ...shards.map((b) => (b.status === 'pending' ? settleShardUpdate(b, round, nowIso) : roundShardUpdate(b, round))),
      // A day not spread has its money on shard 0 only, and no capture of this round can pick another (store.ts isSpread).
      ...(isSpread(shards) ? missingShardPuts(merchantId, date, shards, round, currency, nowIso) : []),
    ];
    const record = {
      settlementId: id,
      merchantId,
      businessDate: date,
      round,
      amount: Math.max(0, amount),
      currency,
      transactionCount: sums.transactionCount,
      refundCount: sums.refundCount,
      linesComplete,
      status: 'completed' as const,
      settledAt: nowIso,
    };
    // A round that pays something: its ledger entry is its record (ledger/store.ts settlementEntry).
    const entry = amount > 0 ? settlementEntry({ merchantId, date, round, settlementId: id, amount, currency, nowIso }) : undefined;
    const recordAt = items.push(settlementRecordPut(record, entry)) - 1;
    // A negative net (disputes beyond the day's payments) pays 0 and moves to the next settlement day.
    if (amount < 0) {
      const nextDate = nextBusinessDay(date);
      const next = { date: nextDate, day: settlementDayOf(await readDayBatches(merchantId, nextDate)) };
      items.push(
        ...carryItems({ merchantId, date, settlementId: id, round, deficit: -amount, currency, fromBatchSk: pending[0]!.sk, next, nowIso }),
      );
    }
    if (amount > 0) items.push(settledAdd(merchantId, amount));
    try {
      // The event rides on the record (SETTLEMENT_EVENT_DERIVERS): no event item in this transaction.
      if (amount > 0)
        await commit(items, [{ type: SETTLEMENT_COMPLETED, to: merchantId, data: settlementCompletedData(record, count) }], {
          carry: { on: recordAt, args: { count } },
        });
      else await commit(items, []);
      logger.info('settled', { merchantId, settlementDate: date, round, shards: pending.length });
    } catch (e) {
      // A capture, refund or another run changed a shard after our read: read again.
      if (isTransactionCancelled(e) && attempt < MAX_ATTEMPTS) {
        await conflictBackoff(attempt, { base: 15, cap: 120, jitter: 1 });
        continue;
      }
      throw e;
    }
    return { settlementId: id, merchantId, settlementDate: date, amount: Math.max(0, amount), count, round };
  }
}

/** Every pending shard's amount and count equal the sums of the round's lines on it. */
function linesMatch(pending: SettlementBatch[], sums: LineSums): boolean {
  const shardSks = new Set(pending.map((b) => b.sk));
  if ([...sums.byShard.keys()].some((sk) => !shardSks.has(sk))) return false;
  return pending.every((b) => {
    const s = sums.byShard.get(b.sk) ?? { count: 0, amount: 0 };
    return s.count === (b.count ?? 0) && s.amount === (b.amount ?? 0);
  });
}

/** Lines beyond what the shards hold (a capture after the read), as opposed to captures without lines. */
function linesExceed(pending: SettlementBatch[], sums: LineSums): boolean {
  const bySk = new Map(pending.map((b) => [b.sk, b]));
  for (const [sk, s] of sums.byShard) {
    const b = bySk.get(sk);
    if (!b || s.count > (b.count ?? 0)) return true;
  }
  return false;
}

/** The shard's due attributes as read (the lease, for the claimed one): a claim or a new entry since cancels. */
function dueCondition(b: SettlementBatch, values: Record<string, unknown>): string {
  if (b.dueSk === undefined) return 'attribute_not_exists(dueSk)';
  values[':seenDue'] = b.dueSk;
  return 'dueSk = :seenDue';
}

/** The round read (absent on shards written before release 3): a settlement since cancels. */
function roundCondition(b: SettlementBatch, values: Record<string, unknown>): string {
  if (b.settleRound === undefined) return 'attribute_not_exists(settleRound)';
  values[':seenRound'] = b.settleRound;
  return 'settleRound = :seenRound';
}

function settleShardUpdate(b: SettlementBatch, round: number, nowIso: string): TransactItem {
  const values: Record<string, unknown> = {
    ':settled': 'settled',
    ':pending': 'pending',
    ':amt': b.amount ?? 0,
    ':negAmt': -(b.amount ?? 0),
    ':cnt': b.count ?? 0,
    ':negCnt': -(b.count ?? 0),
    ':now': nowIso,
    ':round': round,
  };
  return {
    Update: {
      TableName: table(),
      Key: { pk: b.pk, sk: b.sk },
      UpdateExpression:
        'SET #status = :settled, settledAt = :now, updatedAt = :now, settleRound = :round ADD #amount :negAmt, settledAmount :amt, #count :negCnt REMOVE duePk, dueSk',
      ConditionExpression: `#status = :pending AND #amount = :amt AND #count = :cnt AND ${dueCondition(b, values)}`,
      ExpressionAttributeNames: { '#status': 'status', '#amount': 'amount', '#count': 'count' },
      ExpressionAttributeValues: values,
    },
  };
}

/** A shard of the day with nothing pending: it takes the new round (a capture reads it there), if still as read. */
function roundShardUpdate(b: SettlementBatch, round: number): TransactItem {
  const values: Record<string, unknown> = { ':round': round, ':status': b.status };
  return {
    Update: {
      TableName: table(),
      Key: { pk: b.pk, sk: b.sk },
      UpdateExpression: 'SET settleRound = :round REMOVE duePk, dueSk',
      ConditionExpression: `#status = :status AND ${roundCondition(b, values)} AND ${dueCondition(b, values)}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The shards of the day no capture wrote yet (of `BALANCE_SHARDS`), written settled with the
 * new round: a capture that picks one later reads the round there, and one racing this
 * settlement finds the item it assumed absent and reads again.
 */
function missingShardPuts(
  merchantId: string,
  date: string,
  shards: SettlementBatch[],
  round: number,
  currency: string,
  nowIso: string,
): TransactItem[] {
  const present = new Set(shards.map((b) => b.sk));
  const puts: TransactItem[] = [];
  for (let n = 0; n < config.balanceShards(); n++) {
    if (present.has(batchSk(date, n))) continue;
    const item: SettlementBatch = {
      ...batchKey(merchantId, date, n),
      merchantId,
      settlementDate: date,
      shard: n,
      currency,
      status: 'settled',
      amount: 0,
      count: 0,
      capturedAmount: 0,
      settleRound: round,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
    puts.push({ Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });
  }
  return puts;
}

/**
 * Settles what is due at `now` (days whose 00:00 Lagos is at or before `now`): for one
 * merchant, or for every merchant on the due index. `includeFuture` settles a merchant's
 * later days too (the sandbox helper `POST /v1/sandbox/settlements/run`).
 */
export async function settleDue(
  merchantId: string | undefined,
  now: Date,
  opts: { includeFuture?: boolean } = {},
): Promise<SettlementResult[]> {
  const today = lagosDate(now);
  const days = new Set<string>(); // "<merchantId> <date>"
  if (merchantId) {
    const batches = await queryPartitions<SettlementBatch>(settlePks(merchantId), {
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      FilterExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':from': addDays(today, -PENDING_LOOKBACK_DAYS), ':pending': 'pending' },
      ConsistentRead: true,
    });
    for (const b of batches) if (opts.includeFuture || b.settlementDate <= today) days.add(`${merchantId} ${b.settlementDate}`);
  } else {
    // Every settlement item due by now, from the due index (keys only).
    for (let shard = 0; shard < config.dueShards(); shard++) {
      for (const it of await queryDue(shard, now, Number.MAX_SAFE_INTEGER)) {
        if (parseDueSk(it.dueSk).kind !== SETTLEMENT_KIND) continue;
        days.add(`${merchantOfSettlePk(it.pk)} ${it.sk.split('#')[0]}`);
      }
    }
  }
  const results: SettlementResult[] = [];
  for (const d of [...days].sort()) {
    const [m, date] = d.split(' ') as [string, string];
    const r = await settleDay(m, date, now);
    if (r) results.push(r);
  }
  return results;
}

export async function runSettlement(job: DueJob): Promise<void> {
  const merchantId = merchantOfSettlePk(job.key.pk);
  const date = job.key.sk.split('#')[0]!;
  await settleDay(merchantId, date, new Date(job.now), { sk: job.key.sk, leasedSk: job.leasedSk });
}

/** Due kind `settlement.lines` (retired): a record committed before release 3 leaves the due index. */
export const runSettlementLinesJob = (job: DueJob) => runSettlementLines(job, getSettlement);
