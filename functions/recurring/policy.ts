/**
 * Recurring schedules: the run policy (pure; docs/decisions.md "Recurring schedules").
 * All date math comes from domain/schedule-dates.ts (occurrences from the anchor).
 *
 * A schedule's cursor is (occurrence, attempt, nextBillingDate): the period it bills next
 * (occurrence n = nextBillingDate(anchor, frequency, interval, n), n = 0 is startDate), the
 * attempt within that period (0 = first try, 1..MAX_RETRIES_PER_PERIOD = retries) and the
 * instant that run is due.
 *
 *  - After a run at `ranAt` (the tick's time) for period k: the next period is the first one
 *    after k whose date is strictly after `ranAt`. On time, that is k + 1; a run that
 *    happened late (the service was down, a catch-up of a startDate in the past) never
 *    bills the periods it missed one after another.
 *  - A failed run (declined, expired, failed at the bank, or refused at creation because of
 *    the spending limits) is retried one day after it ran, at most MAX_RETRIES_PER_PERIOD
 *    times per period, and only while the retry comes before the next period and not after
 *    endDate; otherwise the period is given up and the schedule moves to the next one.
 *  - Resume: the first occurrence strictly after "now", but never one that was already
 *    handled (missed periods are skipped; the next date is never in the past).
 *  - Complete: successes reach maxBillings, or the next date would pass endDate.
 */
import { DAY_MS } from '../domain/lagos-time';
import { isComplete, nextBillingDate, occurrenceAfter, type Frequency } from '../domain/schedule-dates';

/** Due kind of a schedule (functions/recurring/run.ts). */
export const RECURRING_RUN_KIND = 'recurring.run';

/** Retries of a failed period (so at most 1 + 3 attempts per period). */
export const MAX_RETRIES_PER_PERIOD = 3;
/** A failed run is retried this long after it ran. */
export const RETRY_DELAY_MS = DAY_MS;
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

/** After a failed run (period k, attempt a, ran at `ranAt`): a retry the next day, or the next period. */
export function afterFailure(s: ScheduleDates, k: number, attempt: number, ranAt: Date): Cursor {
  const retryAt = new Date(ranAt.getTime() + RETRY_DELAY_MS);
  const nextPeriod = dateOf(s, k + 1);
  const beforeNext = nextPeriod === undefined || retryAt.getTime() < nextPeriod.getTime();
  const withinEnd = s.endDate == null || retryAt.getTime() <= s.endDate.getTime();
  if (attempt < MAX_RETRIES_PER_PERIOD && beforeNext && withinEnd) {
    return { occurrence: k, attempt: attempt + 1, nextBillingDate: retryAt };
  }
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
