/**
 * Due kind `settlement` (docs/billing-design.md "Settlement"): at 00:00 Lagos of a
 * settlement day, the merchant's funds of that day move from unsettled to settled.
 *
 * A day's batch is spread over shard items (`SETTLE#<m>` / `<date>#<n>`, see
 * ledger/store.ts); each carries the due attributes, and whichever claimed shard runs first
 * settles EVERY pending shard of the day in one transaction: one ledger entry
 * (`merchant_unsettled` → `merchant_settled`), one balance shard ADD, each batch shard
 * marked `settled` (conditioned on the amount and count read, status `pending`, and the
 * due attributes read — the lease for the claimed one), and one `settlement.completed`
 * event to the merchant (+ provider). A capture or refund that lands between the read and
 * the write cancels the transaction, which re-reads and tries again; a capture after it
 * re-opens its shard, which settles on the next tick (a second round).
 */
import { config } from '../config';
import { commit } from '../events/outbox';
import { toMajor } from '../domain/money';
import { addDays, lagosDate, startOfLagosDay } from '../domain/lagos-time';
import { logger } from '../platform/log';
import {
  accounts,
  balanceAdd,
  carryItems,
  entryPut,
  ledgerEntryId,
  ledgerEntryKey,
  LEDGER_CURRENCY,
  PENDING_LOOKBACK_DAYS,
  readDayBatches,
  SETTLEMENT_KIND,
  settlePk,
  type SettlementBatch,
} from './store';
import { isTransactionCancelled, queryAll, table, type TransactItem } from '../platform/table';
import { parseDueSk, queryDue, type DueJob } from '../platform/due';
import {
  assignLines,
  runSettlementLines,
  SettlementCommitted,
  settlementRecordPut,
  stampSettledTransactions,
  type LineSums,
} from './settlement-store';
import { getSettlement } from './settlement-views';
import { conflictBackoff } from '../platform/retry';

export const SETTLEMENT_COMPLETED = 'settlement.completed';

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

export const settlementId = (merchantId: string, date: string, round: number) => `stl_${merchantId}_${date}_${round}`;

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
    if (pending.length === 0) return undefined;
    const amount = pending.reduce((s, b) => s + (b.amount ?? 0), 0);
    const count = pending.reduce((s, b) => s + (b.count ?? 0), 0);
    const round = Math.max(0, ...shards.map((b) => b.settleRound ?? 0)) + 1;
    const id = settlementId(merchantId, date, round);
    const currency = pending[0]!.currency ?? LEDGER_CURRENCY;
    // Which captures and refunds this round pays: the day's lines, stamped with its id.
    let sums: LineSums;
    try {
      sums = await assignLines(merchantId, date, id);
    } catch (e) {
      if ((e instanceof SettlementCommitted || isTransactionCancelled(e)) && attempt < MAX_ATTEMPTS) {
        await conflictBackoff(attempt, { base: 15, cap: 120, jitter: 1 });
        continue; // another run committed this round, or a line changed: read again
      }
      throw e;
    }
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
    const items: TransactItem[] = pending.map((b) => settleShardUpdate(b, round, nowIso));
    items.push(
      settlementRecordPut({
        settlementId: id,
        merchantId,
        businessDate: date,
        round,
        amount: Math.max(0, amount),
        currency,
        transactionCount: sums.transactionCount,
        refundCount: sums.refundCount,
        linesComplete,
        status: 'completed',
        settledAt: nowIso,
      }),
    );
    // A negative net (disputes beyond the day's payments) pays 0 and moves to the next settlement day.
    if (amount < 0)
      items.push(...carryItems({ merchantId, date, settlementId: id, deficit: -amount, currency, fromBatchSk: pending[0]!.sk, nowIso }));
    if (amount > 0) {
      items.push(
        entryPut({
          ...ledgerEntryKey(merchantId, startOfLagosDay(date).toISOString(), ledgerEntryId('settlement', `${merchantId}/${date}/${round}`)),
          entryId: ledgerEntryId('settlement', `${merchantId}/${date}/${round}`),
          kind: 'settlement',
          merchantId,
          debit: accounts.unsettled(merchantId),
          credit: accounts.settled(merchantId),
          amount,
          currency,
          settlementDate: date,
          settlementId: id,
          postedAt: nowIso,
        }),
        balanceAdd(merchantId, { unsettled: -amount, settled: amount }),
      );
    }
    const events =
      amount > 0
        ? [
            {
              type: SETTLEMENT_COMPLETED,
              to: merchantId,
              data: {
                settlementId: id,
                entityId: merchantId,
                settlementDate: date,
                amount: toMajor(amount),
                currency,
                count,
                settledAt: nowIso,
              },
            },
          ]
        : [];
    try {
      await commit(items, events);
      logger.info('settled', { merchantId, settlementDate: date, round, shards: pending.length });
    } catch (e) {
      // A capture, refund or another run changed a shard after our read: read again.
      if (isTransactionCancelled(e) && attempt < MAX_ATTEMPTS) {
        await conflictBackoff(attempt, { base: 15, cap: 120, jitter: 1 });
        continue;
      }
      throw e;
    }
    // Committed: name the settlement on its transactions (the due item `settlement.lines` retries this).
    const record = await getSettlement(id);
    if (record) await stampSettledTransactions(record);
    return { settlementId: id, merchantId, settlementDate: date, amount: Math.max(0, amount), count, round };
  }
}

/** Every pending shard's amount and count equal the lines stamped for it. */
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
  let dueCondition = 'attribute_not_exists(dueSk)';
  if (b.dueSk !== undefined) {
    dueCondition = 'dueSk = :seenDue';
    values[':seenDue'] = b.dueSk;
  }
  return {
    Update: {
      TableName: table(),
      Key: { pk: b.pk, sk: b.sk },
      UpdateExpression:
        'SET #status = :settled, settledAt = :now, updatedAt = :now, settleRound = :round ADD #amount :negAmt, settledAmount :amt, #count :negCnt REMOVE duePk, dueSk',
      ConditionExpression: `#status = :pending AND #amount = :amt AND #count = :cnt AND ${dueCondition}`,
      ExpressionAttributeNames: { '#status': 'status', '#amount': 'amount', '#count': 'count' },
      ExpressionAttributeValues: values,
    },
  };
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
    const batches = await queryAll<SettlementBatch>({
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      FilterExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': settlePk(merchantId), ':from': addDays(today, -PENDING_LOOKBACK_DAYS), ':pending': 'pending' },
      ConsistentRead: true,
    });
    for (const b of batches) if (opts.includeFuture || b.settlementDate <= today) days.add(`${merchantId} ${b.settlementDate}`);
  } else {
    // Every settlement item due by now, from the due index (keys only).
    for (let shard = 0; shard < config.dueShards(); shard++) {
      for (const it of await queryDue(shard, now, Number.MAX_SAFE_INTEGER)) {
        if (parseDueSk(it.dueSk).kind !== SETTLEMENT_KIND) continue;
        days.add(`${it.pk.slice('SETTLE#'.length)} ${it.sk.split('#')[0]}`);
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
  const merchantId = job.key.pk.slice('SETTLE#'.length);
  const date = job.key.sk.split('#')[0]!;
  await settleDay(merchantId, date, new Date(job.now), { sk: job.key.sk, leasedSk: job.leasedSk });
}

/** Due kind `settlement.lines`: stamp a committed settlement's transactions (after a worker stopped). */
export const runSettlementLinesJob = (job: DueJob) => runSettlementLines(job, getSettlement);
