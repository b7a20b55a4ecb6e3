/**
 * Recurring schedules: the run policy (pure; docs/decisions/recurring-schedules.md).
 * All date math comes from domain/schedule-dates.ts (occurrences from the anchor).
 *
 * A schedule's cursor is (occurrence, attempt, nextBillingDate): the period it bills next
 * (occurrence n = nextBillingDate(anchor, frequency, interval, n), n = 0 is startDate), the
 * attempt within that period (0 = first try, then the retries of the merchant's policy) and the
 * instant that run is due.
 *
 *  - After a run at `ranAt` (the tick's time) for period k: the next period is the first one
 *    after k whose date is strictly after `ranAt`. On time, that is k + 1; a run that
 *    happened late (the service was down, a catch-up of a startDate in the past) never
 *    bills the periods it missed one after another.
 *  - A failed run (a bank decline, an expiry, no answer from the bank, or refused at creation
 *    because of the spending limits) is retried by the merchant's retry policy (DESIGN 8.6:
 *    `retryAfterDays`, default [1, 1, 1]): retry i comes retryAfterDays[i] days after the
 *    attempt before it ran, moved to the next Lagos business day (same time of day) when it
 *    falls on a weekend or a public holiday, and only while it comes before the next period
 *    and not after endDate; otherwise the period is given up and the schedule moves to the
 *    next one. A refusal by the customer (deny, suspended) is never retried (billing's `isCustomerRefusal`).
 *  - Resume: the first occurrence strictly after "now", but never one that was already
 *    handled (missed periods are skipped; the next date is never in the past).
 *  - Complete: successes reach maxBillings, or the next date would pass endDate.
 */
import { isBusinessDay, nextBusinessDay } from '../domain/business-days';
import { DAY_MS, dayNumber, lagosDate } from '../domain/lagos-time';
import { isComplete, nextBillingDate, occurrenceAfter, type Frequency } from '../domain/schedule-dates';

/** Due kind of a schedule (functions/billing/recurring-run.ts). */
export const RECURRING_RUN_KIND = 'recurring.run';

/** The retry policy of a merchant that has not set one (DESIGN 8.6): three retries, a day apart. */
export const DEFAULT_RETRY_AFTER_DAYS: readonly number[] = [1, 1, 1];
/** Bounds of a merchant's policy: 1..5 retries, each 1..30 days after the attempt before it. */
export const RETRY_POLICY_BOUNDS = { maxRetries: 5, minDays: 1, maxDays: 30 } as const;

/** `days` after `ranAt`, moved to the next Lagos business day (same time of day) if it is not one. */
export function retryDate(ranAt: Date, days: number): Date {
  const at = new Date(ranAt.getTime() + days * DAY_MS);
  const date = lagosDate(at);
  if (isBusinessDay(date)) return at;
  return new Date(at.getTime() + (dayNumber(nextBusinessDay(date)) - dayNumber(date)) * DAY_MS);
}
/**
 * A run's billing needs no approval, so the bank answers at once; one it has not answered
 * this long after the run is failed (`reason: bank_no_answer`), counted as a failed attempt,
 * so a silent bank can never freeze a schedule in `processing`.
 */
export const ANSWER_TIMEOUT_MS = DAY_MS;

export interface ScheduleDates {
  /** startDate: occurrence 0. */
  anchor: Date;
  frequency: Frequency;
  interval: number;
  endDate?: Date | null;
  maxBillings?: number | null;
}

export interface Cursor {
  occurrence: number;
  attempt: number;
  /** undefined: no date left before year 9999 (the schedule is complete). */
  nextBillingDate: Date | undefined;
}

function dateOf(s: ScheduleDates, n: number): Date | undefined {
  try {
    return nextBillingDate(s.anchor, s.frequency, s.interval, n);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/** The first period after `k` whose date is strictly after `ranAt` (missed periods skipped). */
export function advance(s: ScheduleDates, k: number, ranAt: Date): Cursor {
  let n = k + 1;
  try {
    n = Math.max(n, occurrenceAfter(s.anchor, s.frequency, s.interval, ranAt).n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return { occurrence: n, attempt: 0, nextBillingDate: undefined };
  }
  return { occurrence: n, attempt: 0, nextBillingDate: dateOf(s, n) };
}

/**
 * When the failed attempt `attempt` of period k (ran at `ranAt`) is retried under the policy
 * `retryAfterDays`, or null when it is not (the policy is used up, or the retry would not
 * come before the next period or would pass endDate).
 */
export function nextRetryAt(
  s: ScheduleDates,
  k: number,
  attempt: number,
  ranAt: Date,
  retryAfterDays: readonly number[] = DEFAULT_RETRY_AFTER_DAYS,
): Date | null {
  const days = retryAfterDays[attempt];
  if (days === undefined) return null;
  const retryAt = retryDate(ranAt, days);
  const nextPeriod = dateOf(s, k + 1);
  const beforeNext = nextPeriod === undefined || retryAt.getTime() < nextPeriod.getTime();
  const withinEnd = s.endDate == null || retryAt.getTime() <= s.endDate.getTime();
  return beforeNext && withinEnd ? retryAt : null;
}

/**
 * After a failed run (period k, attempt a, ran at `ranAt`): its retry (`retryAt`, as
 * `nextRetryAt` computed it when the run started), or the next period.
 */
export function afterFailure(s: ScheduleDates, k: number, attempt: number, ranAt: Date, retryAt: Date | null): Cursor {
  if (retryAt) return { occurrence: k, attempt: attempt + 1, nextBillingDate: retryAt };
  return advance(s, k, ranAt);
}

/**
 * Resume at `now` with the cursor at period `k`: the first occurrence strictly after now,
 * but not before k (periods before k were handled already).
 */
export function resumeCursor(s: ScheduleDates, k: number, now: Date): Cursor {
  let n = k;
  try {
    n = Math.max(k, occurrenceAfter(s.anchor, s.frequency, s.interval, now).n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return { occurrence: k, attempt: 0, nextBillingDate: undefined };
  }
  return { occurrence: n, attempt: 0, nextBillingDate: dateOf(s, n) };
}

export type CompletionReason = 'max_billings' | 'end_date';

/** Why the schedule is complete with `totalBillings` successes and this next date, or undefined. */
export function completionReason(s: ScheduleDates, totalBillings: number, next: Date | undefined): CompletionReason | undefined {
  if (s.maxBillings != null && totalBillings >= s.maxBillings) return 'max_billings';
  if (next === undefined) return 'end_date';
  return isComplete({ totalBillings, maxBillings: s.maxBillings, nextDate: next, endDate: s.endDate }) ? 'end_date' : undefined;
}

/** When the bank's answer to a run started at `startedAt` is given up. */
export const answerDeadline = (startedAt: Date): Date => new Date(startedAt.getTime() + ANSWER_TIMEOUT_MS);

/**
 * When the bank's pre-debit notice of a run due at `runAt` falls due (DESIGN 8.5): `noticeMs`
 * before it (at once when that is already past; the worker sends it and the run waits for
 * its date). A notice announces a PERIOD's debit: a retry of the same period is the same debit
 * and is not announced again (`noticeDue` is false once `noticedOccurrence` is the period).
 */
export function noticeAt(runAt: Date, noticeMs: number): Date {
  return new Date(runAt.getTime() - Math.max(0, noticeMs));
}

/** Whether the period `occurrence` still has to be announced to the bank. */
export const noticeDue = (noticeMs: number, occurrence: number, noticedOccurrence: number | undefined): boolean =>
  noticeMs > 0 && noticedOccurrence !== occurrence;

/** When a run of period `occurrence` at `runAt` is due on the index: its notice first, if still owed. */
export const firstDueAt = (runAt: Date, noticeMs: number, occurrence: number, noticedOccurrence: number | undefined): Date =>
  noticeDue(noticeMs, occurrence, noticedOccurrence) ? noticeAt(runAt, noticeMs) : runAt;
