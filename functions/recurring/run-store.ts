/**
 * Recurring schedules, the run state machine (DESIGN 6.9 Recurring, 8.5, 8.6): the bank's
 * pre-debit notice, the run claim committed in the run billing's transaction, a run refused
 * before billing, the billing outcome's record (the outcome hook's item, recurring/outcome.ts)
 * and the finishing of a run (next period, retry or completion), and the run worker's claim
 * moved or released. The worker that drives it is functions/billing/recurring-run.ts.
 */
import { commit, type EventSpec } from '../events/outbox';
import { billingOutcomeReason, isCustomerRefusal, type BillingOutcome } from '../bills/outcome';
import { advance, afterFailure, answerDeadline, completionReason, nextRetryAt } from './policy';
import { toMajor } from '../domain/money';
import type { BillItem } from '../bills/types';
import { db } from '../platform/clients';
import { cancellationCodes, isConditionFailure, isTransactionCancelled, UpdateCommand, type TransactItem } from '../platform/table';
import { datesOf, getSchedule, type RunRefusal, type ScheduleItem } from './views';
import type { Change } from '../platform/update';
import { applied, cursorSet, DEFAULT_RUN_DESCRIPTION, DUE_ATTRIBUTES, dueOf, event, mutate, runDueOf, updateItem } from './store';

const RUN_ATTRIBUTES = [
  'runSeq',
  'runOccurrence',
  'runAttempt',
  'runBillingRequestId',
  'runStartedAt',
  'runAnswerBy',
  'runRetryAt',
  'outcomeSeq',
  'outcomeStatus',
  'outcomeAt',
  'outcomeReason',
];

/** When the attempt `s` is about to make is retried if it fails, under the merchant's policy (DESIGN 8.6). */
export const retryAtOf = (s: ScheduleItem, ranAt: Date, retryAfterDays: readonly number[] | undefined): string | null =>
  nextRetryAt(datesOf(s), s.occurrence, s.attempt, ranAt, retryAfterDays)?.toISOString() ?? null;
const runSettled = (s: ScheduleItem) => s.runSeq !== undefined && s.outcomeSeq === s.runSeq;

export type NoticeResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'claim_lost' };

/**
 * The bank's pre-debit notice of the next run (DESIGN 8.5): `billing.upcoming` to the bank and
 * the period marked announced, in one transaction conditioned on the tick's lease and the
 * version read, so a repeated or concurrent job cannot announce it twice. When the run is
 * still ahead the due entry moves to its date; when it is due already the entry stays (the
 * worker goes on to the run under the same lease).
 */
export async function sendRunNotice(s: ScheduleItem, leasedSk: string, merchantName: string, now: Date): Promise<NoticeResult> {
  const runAt = s.nextBillingDate!;
  const ahead = Date.parse(runAt) > now.getTime();
  const change: Change = { set: { noticedOccurrence: s.occurrence, noticedRunAt: runAt, ...(ahead ? dueOf(s.scheduleId, runAt) : {}) } };
  const item = updateItem(s.scheduleId, change, {
    expr: 'dueSk = :leased AND version = :ver AND attribute_not_exists(runSeq)',
    values: { ':leased': leasedSk, ':ver': s.version },
  });
  const upcoming: EventSpec = {
    type: 'billing.upcoming',
    to: s.bankId,
    data: {
      scheduleId: s.scheduleId,
      runAt,
      sequence: s.seq,
      amount: toMajor(s.amount),
      currency: s.currency,
      customerId: s.customerId,
      entityId: s.merchantId,
      merchantName,
      description: s.description ?? DEFAULT_RUN_DESCRIPTION,
    },
  };
  try {
    await commit([item], [upcoming]);
    return { ok: true, schedule: applied(s, change) };
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'claim_lost' };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Runs

/**
 * The run claim, committed IN the run billing's transaction (createBilling `extraItems`):
 * active -> processing, seq + 1, the run's attributes, the due entry moved to the bank's
 * answer deadline; conditioned on status active, the expected seq, no run in flight and
 * the tick's lease. So a run happens exactly once: with its billing, or not at all.
 */
export function claimRunItem(s: ScheduleItem, leasedSk: string, billingRequestId: string, now: Date, retryAt: string | null): TransactItem {
  const answerBy = answerDeadline(now).toISOString();
  return updateItem(
    s.scheduleId,
    {
      set: {
        status: 'processing',
        seq: s.seq + 1,
        runSeq: s.seq,
        runOccurrence: s.occurrence,
        runAttempt: s.attempt,
        runBillingRequestId: billingRequestId,
        runStartedAt: now.toISOString(),
        runAnswerBy: answerBy,
        runRetryAt: retryAt,
        lastRunAt: now.toISOString(),
        lastRunStatus: 'pending',
        updatedAt: now.toISOString(),
        ...dueOf(s.scheduleId, answerBy),
      },
    },
    {
      expr: '#status = :active AND seq = :seq AND dueSk = :leased AND attribute_not_exists(runSeq)',
      names: { '#status': 'status' },
      values: { ':active': 'active', ':seq': s.seq, ':leased': leasedSk },
    },
  );
}

/** Index of the claim among createBilling's items (the caller's extra items come first). */
export const CLAIM_ITEM_INDEX = 0;

const PERMISSION_REFUSALS: ReadonlySet<RunRefusal> = new Set([
  'permission_revoked',
  'merchant_blocked',
  'merchant_not_premium',
  'approval_not_valid',
  'approval_no_payments_left',
]);

export type FailRunResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'claim_lost' };

/**
 * A run refused before any billing was created (no billing, no reservation): a failed
 * attempt, `schedule.run_failed`, and
 *  - limits: the retry policy (the next day, or the next period; maybe completion);
 *  - the permission is gone (decision no longer approve_recurring, merchant blocked, merchant
 *    no longer trusted premium): the schedule is PAUSED with that reason (`schedule.paused`),
 *    so no further run is attempted until the merchant resumes it.
 * Conditioned like the claim (active, seq, no run, the lease).
 */
export async function failRunAtCreation(
  s: ScheduleItem,
  leasedSk: string,
  reason: RunRefusal,
  now: Date,
  retryAfterDays?: readonly number[],
): Promise<FailRunResult> {
  const at = now.toISOString();
  const base: Record<string, unknown> = { seq: s.seq + 1, updatedAt: at, lastRunAt: at, lastRunStatus: 'refused' };
  const paused = PERMISSION_REFUSALS.has(reason);
  const retryAt = paused ? null : retryAtOf(s, now, retryAfterDays);
  const runFailed = {
    runSeq: s.seq,
    reason,
    customerAction: 'declined',
    scheduledFor: s.nextBillingDate,
    willRetry: retryAt !== null,
    ...(retryAt ? { nextRetryAt: retryAt } : {}),
  };
  let change: Change;
  let events: (n: ScheduleItem) => EventSpec[];
  if (paused) {
    change = {
      set: { ...base, status: 'paused', pausedAt: at, pauseReason: reason, pausedBy: 'service' },
      remove: DUE_ATTRIBUTES,
      add: { failedAttempts: 1 },
    };
    events = (n) => [
      event('schedule.run_failed', n, 'system', runFailed),
      event('schedule.paused', n, 'system', { pausedAt: at, reason, pausedBy: 'service' }),
    ];
  } else {
    const dates = datesOf(s);
    const cursor = afterFailure(dates, s.occurrence, s.attempt, now, retryAt ? new Date(retryAt) : null);
    const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
    if (done) {
      change = {
        set: { ...base, ...cursorSet(cursor), status: 'completed', completedAt: at, completionReason: done, nextBillingDate: null },
        remove: DUE_ATTRIBUTES,
        add: { failedAttempts: 1 },
      };
      events = (n) => [
        event('schedule.run_failed', n, 'system', runFailed),
        event('schedule.completed', n, 'system', { completedAt: at, reason: done }),
      ];
    } else {
      change = {
        set: { ...base, ...cursorSet(cursor), ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence) },
        add: { failedAttempts: 1 },
      };
      events = (n) => [event('schedule.run_failed', n, 'system', runFailed)];
    }
  }
  const item = updateItem(s.scheduleId, change, {
    expr: '#status = :active AND seq = :seq AND dueSk = :leased AND attribute_not_exists(runSeq)',
    names: { '#status': 'status' },
    values: { ':active': 'active', ':seq': s.seq, ':leased': leasedSk },
  });
  const next = applied(s, change);
  try {
    await commit([item], events(next));
    return { ok: true, schedule: next };
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'claim_lost' };
    throw e;
  }
}

/**
 * The billing outcome hook's item (functions/recurring/outcome.ts), committed with the
 * billing's status change: unconditional and commutative, as hooks must be (a concurrent
 * pause or cancel of the schedule can neither cancel the bank's answer nor be overwritten):
 * ADD totalBillings (succeeded) or failedAttempts (declined, expired, failed), record the
 * outcome of the run in flight, and make the schedule due now, so the run is finished (next
 * date, completion, events) right after the commit, or by the next tick if that step is lost.
 */
export function recordOutcomeItem(bill: BillItem, outcome: BillingOutcome, at: Date): TransactItem {
  const id = bill.scheduleId!;
  const succeeded = outcome.status === 'succeeded';
  return updateItem(id, {
    set: {
      outcomeSeq: bill.runSeq,
      outcomeStatus: outcome.status,
      outcomeAt: at.toISOString(),
      outcomeReason: billingOutcomeReason(outcome) ?? null,
      lastRunStatus: outcome.status,
      ...dueOf(id, at),
    },
    add: succeeded ? { totalBillings: 1 } : { failedAttempts: 1 },
  });
}

export type FinishResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'not_found' | 'nothing_to_finish' };

/**
 * Finish the run whose outcome is recorded: the next period (success) or the retry policy
 * (failure), then active again with the next date on the due index, or completed
 * (`schedule.completed`) when maxBillings is reached or the next date passes endDate. A
 * paused schedule keeps its status (the cursor moves on; resume recomputes anyway), a
 * cancelled one only drops the run. Conditioned on the version read, retried on a fresh read.
 */
export function finishRun(id: string, now: Date): Promise<FinishResult> {
  const at = now.toISOString();
  return mutate<FinishResult>(
    () => getSchedule(id),
    (s) => {
      if (!runSettled(s)) return { kind: 'done', result: { ok: false, reason: 'nothing_to_finish' } };
      const dates = datesOf(s);
      const ranAt = new Date(s.runStartedAt!);
      const k = s.runOccurrence!;
      const cursor =
        s.outcomeStatus === 'succeeded'
          ? advance(dates, k, ranAt)
          : afterFailure(dates, k, s.runAttempt ?? 0, ranAt, retryAfterFailure(s, dates, ranAt));
      const base = { updatedAt: at };
      if (s.status === 'cancelled' || s.status === 'completed') {
        return {
          kind: 'change',
          change: { set: base, remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES] },
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
      if (done) {
        const change: Change = {
          set: { ...base, ...cursorSet(cursor), status: 'completed', completedAt: at, completionReason: done, nextBillingDate: null },
          remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES],
        };
        return {
          kind: 'change',
          change,
          events: (n) => [event('schedule.completed', n, 'system', { completedAt: at, reason: done })],
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      if (s.status === 'paused') {
        // Paused while the run was at the bank: off the index, or due at its resumesAt.
        const change: Change = s.resumesAt
          ? { set: { ...base, ...cursorSet(cursor), ...dueOf(s.scheduleId, s.resumesAt) }, remove: RUN_ATTRIBUTES }
          : { set: { ...base, ...cursorSet(cursor) }, remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES] };
        return { kind: 'change', change, result: (n) => ({ ok: true, schedule: n }) };
      }
      const change: Change = {
        set: {
          ...base,
          ...cursorSet(cursor),
          status: 'active',
          ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence),
        },
        remove: RUN_ATTRIBUTES,
      };
      return { kind: 'change', change, result: (n) => ({ ok: true, schedule: n }) };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/**
 * The retry of the failed run in flight: none after the customer's refusal (DESIGN 8.6), else
 * the one fixed when it started (a run started before retries were recorded: the default policy).
 */
function retryAfterFailure(s: ScheduleItem, dates: ReturnType<typeof datesOf>, ranAt: Date): Date | null {
  if (isCustomerRefusal(s.outcomeReason ?? undefined)) return null;
  if (s.runRetryAt !== undefined) return s.runRetryAt === null ? null : new Date(s.runRetryAt);
  return nextRetryAt(dates, s.runOccurrence!, s.runAttempt ?? 0, ranAt);
}

/** Put the schedule back on the due index at `at`, only while the tick's claim holds. */
function rescheduleDueItem(id: string, leasedSk: string, at: string | Date): TransactItem {
  const due = dueOf(id, at);
  return updateItem(id, { set: { duePk: due.duePk, dueSk: due.dueSk } }, { expr: 'dueSk = :leased', values: { ':leased': leasedSk } });
}

/** Take the schedule off the due index, only while the tick's claim holds. */
function clearDueItem(id: string, leasedSk: string): TransactItem {
  return updateItem(id, { remove: DUE_ATTRIBUTES }, { expr: 'dueSk = :leased', values: { ':leased': leasedSk } });
}

/** A conditional single-item update outside a transaction; a failed condition = someone else moved on. */
async function sendIfStillOurs(item: TransactItem): Promise<void> {
  try {
    await db().send(new UpdateCommand(item.Update as ConstructorParameters<typeof UpdateCommand>[0]));
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

/** The run worker's claim, moved to `at` (only while it is ours). */
export const rescheduleRunClaim = (id: string, leasedSk: string, at: string | Date) => sendIfStillOurs(rescheduleDueItem(id, leasedSk, at));

/** The run worker's claim, released: the schedule leaves the due index (only while it is ours). */
export const clearRunClaim = (id: string, leasedSk: string) => sendIfStillOurs(clearDueItem(id, leasedSk));
