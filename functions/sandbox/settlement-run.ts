/**
 * The sandbox helper `POST /v1/sandbox/settlements/run` (DESIGN 8.8): settle all the caller's
 * unsettled funds now, future settlement days included, day by day through the settlement
 * worker's own path (`settleDay`: ledger entry, balances, settlement record and lines,
 * `settlement.completed`).
 *
 * It answers once, with what is settled, and never 5xx for work it did
 * (docs/decisions/sandbox-helpers.md, "Settlement run"):
 *  - Bounded time. Each day costs work per capture (its lines stamped, its transactions named),
 *    so a merchant with hundreds of captures took longer than the function may run (30 s
 *    locally, 15 s on AWS): the caller got a 500 while the settling went on, the 500 released
 *    the Idempotency-Key, and the retry ran again beside it and reported only its own part.
 *    Now no day is started after RUN_BUDGET_MS; what is left is `remainingAmount`, for a
 *    second call.
 *  - What is settled, whoever settled it. For each day pending when the run started, the
 *    answer lists the settlements of that day made since (their round is above the day's
 *    round at the start): by this run, or by a concurrent run or the settlement worker that
 *    took the day first.
 *  - A day that fails (contention beyond the worker's retries, or any error) is logged and
 *    left pending, counted in `remainingAmount`; the days settled before it are still
 *    reported, in a 200 the Idempotency-Key stores, so a replay returns this same answer.
 */
import { settleDay, settlementId } from '../ledger/settlement';
import { getSettlement, type SettlementRecord } from '../ledger/settlement-views';
import { addDays, lagosDate } from '../domain/lagos-time';
import { PENDING_LOOKBACK_DAYS, readDayBatches, settlePks, type SettlementBatch } from '../ledger/store';
import { queryPartitions } from '../platform/table';
import { logger } from '../platform/log';

/** No day is started after this long (real time): the answer comes well within the function's timeout. */
export const RUN_BUDGET_MS = 5_000;

export interface SettlementRun {
  /** Settlements of the days pending at the start, made since (by this run or a concurrent one), oldest day first. */
  settlements: SettlementRecord[];
  /** Minor units still unsettled when the run answered (days not reached, or captured meanwhile). */
  remaining: number;
}

const maxRound = (shards: { settleRound?: number }[]) => Math.max(0, ...shards.map((b) => b.settleRound ?? 0));

/** Every batch shard of the merchant from the balance's lookback window on (past, today and future days). */
function readShards(merchantId: string, now: Date): Promise<SettlementBatch[]> {
  return queryPartitions<SettlementBatch>(settlePks(merchantId), {
    KeyConditionExpression: 'pk = :pk AND sk >= :from',
    ExpressionAttributeValues: { ':from': addDays(lagosDate(now), -PENDING_LOOKBACK_DAYS) },
    ConsistentRead: true,
  });
}

export async function runSettlements(merchantId: string, now: Date, budgetMs = RUN_BUDGET_MS): Promise<SettlementRun> {
  const started = Date.now();
  // One read: which days are pending, and each one's settlement round at the start.
  const byDay = new Map<string, SettlementBatch[]>();
  for (const b of await readShards(merchantId, now)) byDay.set(b.settlementDate, [...(byDay.get(b.settlementDate) ?? []), b]);
  const days = [...byDay.keys()].filter((d) => byDay.get(d)!.some((b) => b.status === 'pending')).sort();
  for (const date of days) {
    if (Date.now() - started > budgetMs) break;
    try {
      await settleDay(merchantId, date, now);
    } catch (error) {
      // Left pending (a later run or the worker settles it); what was settled is still answered.
      logger.error('sandbox settlement run: day not settled', { merchantId, settlementDate: date, error: error as Error });
    }
  }
  const settlements: SettlementRecord[] = [];
  for (const date of days) {
    const to = maxRound(await readDayBatches(merchantId, date));
    for (let round = maxRound(byDay.get(date)!) + 1; round <= to; round++) {
      const s = await getSettlement(settlementId(merchantId, date, round));
      if (s) settlements.push(s);
    }
  }
  const left = (await readShards(merchantId, now)).filter((b) => b.status === 'pending');
  return { settlements, remaining: left.reduce((s, b) => s + (b.amount ?? 0), 0) };
}
