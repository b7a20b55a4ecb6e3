/**
 * Recurring schedule date math (spec "Recurring schedule", DESIGN 6.9 Recurring). Pure.
 *
 * Every occurrence is computed FROM THE ANCHOR (the schedule's startDate, occurrence 0),
 * never by adding to the previous occurrence, so clamping never drifts: a monthly schedule
 * anchored on Jan 31 bills Feb 28 (29 in a leap year), Mar 31, Apr 30, May 31, ...; a
 * yearly one anchored on Feb 29 bills Feb 28 in common years and Feb 29 in leap years.
 *
 * Calendar: day, month and year arithmetic happens on the Lagos wall clock (UTC+01:00 with
 * no DST, see lagos-time.ts). Because the offset is fixed, every occurrence keeps the
 * anchor's time of day in UTC (and in Lagos); the only thing Lagos decides is which
 * calendar day an anchor near midnight belongs to. Example: 2026-01-30T23:30:00Z is
 * Jan 31 00:30 in Lagos, so the monthly occurrences are Feb 28 00:30 Lagos
 * (2026-02-27T23:30:00Z), Mar 31 00:30 Lagos, ... Doing the month math in UTC would bill
 * Mar 1 00:30 Lagos instead, i.e. twice in the Lagos month of March and never in February,
 * which matters for the monthly spending limit (counted per Lagos month).
 */
import { DAY_MS, LAGOS_OFFSET_MS, assertInstant, daysInMonth } from './lagos-time';

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const isFrequency = (v: unknown): v is Frequency => typeof v === 'string' && (FREQUENCIES as readonly string[]).includes(v);

/** Spec: interval defaults to 1. */
export const DEFAULT_INTERVAL = 1;
/**
 * Largest interval accepted, for every frequency: 366 lets a daily schedule bill once a
 * year, including a leap year, which is the longest gap that makes sense for any
 * frequency; larger values are almost certainly input mistakes. (Weekly 366 = 7 years,
 * monthly 366 = 30.5 years, yearly 366 = 366 years: all accepted and harmless.)
 */
export const MAX_INTERVAL = 366;

export const isValidInterval = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_INTERVAL;

/** Latest instant an occurrence may have (keeps ISO strings 4-digit-year). */
const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999) - LAGOS_OFFSET_MS;

function assertArgs(anchor: Date, frequency: Frequency, interval: number): void {
  assertInstant(anchor, 'anchor');
  if (!isFrequency(frequency)) throw new RangeError(`unknown frequency: ${String(frequency)}`);
  if (!isValidInterval(interval)) throw new RangeError(`interval must be an integer 1..${MAX_INTERVAL}, got ${interval}`);
}

/** Occurrence `k` steps of `unit` after the anchor, or undefined beyond year 9999. */
function occurrence(anchor: Date, frequency: Frequency, steps: number): Date | undefined {
  let t: number;
  if (frequency === 'daily' || frequency === 'weekly') {
    t = anchor.getTime() + steps * (frequency === 'daily' ? 1 : 7) * DAY_MS;
  } else {
    // Lagos wall clock as a UTC-shaped date: its UTC fields are the Lagos fields.
    const wall = new Date(anchor.getTime() + LAGOS_OFFSET_MS);
    const months = wall.getUTCFullYear() * 12 + wall.getUTCMonth() + steps * (frequency === 'monthly' ? 1 : 12);
    const year = Math.floor(months / 12);
    const month = months % 12; // 0-based
    if (year > 9999) return undefined;
    const day = Math.min(wall.getUTCDate(), daysInMonth(year, month + 1));
    const out = new Date(wall.getTime());
    out.setUTCFullYear(year, month, day);
    t = out.getTime() - LAGOS_OFFSET_MS;
  }
  return t <= MAX_INSTANT ? new Date(t) : undefined;
}

/**
 * The n-th billing date of a schedule (n = 0 is the anchor, i.e. startDate): anchor plus
 * n × interval days, weeks, months or years, month ends clamped (see the module comment).
 * Throws RangeError on an invalid anchor, frequency, interval or n, or past year 9999.
 */
export function nextBillingDate(anchor: Date, frequency: Frequency, interval: number, n: number): Date {
  assertArgs(anchor, frequency, interval);
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  const d = occurrence(anchor, frequency, n * interval);
  if (!d) throw new RangeError('billing date beyond year 9999');
  return d;
}

/**
 * The first occurrence strictly after `after` (its index `n` and date). When `after` is
 * before the anchor this is the anchor itself (n = 0). Used on resume: every occurrence
 * at or before "now" is skipped (missed periods are not billed), so the next date is
 * never in the past. Pass `after = max(now, last billed occurrence)` so an occurrence is
 * never billed twice. Throws RangeError when there is none before year 9999.
 */
export function occurrenceAfter(anchor: Date, frequency: Frequency, interval: number, after: Date): { n: number; date: Date } {
  assertArgs(anchor, frequency, interval);
  assertInstant(after, 'after');
  const a = anchor.getTime();
  const t = after.getTime();
  if (t < a) return { n: 0, date: new Date(a) };
  // Estimate n from the elapsed time, then correct: occurrences strictly increase with n.
  const approxStepMs =
    interval * DAY_MS * (frequency === 'daily' ? 1 : frequency === 'weekly' ? 7 : frequency === 'monthly' ? 30.436875 : 365.2425);
  let n = Math.max(0, Math.floor((t - a) / approxStepMs));
  const at = (k: number): number => {
    const d = occurrence(anchor, frequency, k * interval);
    if (!d) throw new RangeError('no billing date after the given instant before year 9999');
    return d.getTime();
  };
  while (n > 0 && at(n - 1) > t) n--; // estimate too high
  while (at(n) <= t) n++; // estimate too low
  return { n, date: new Date(at(n)) };
}

export interface CompletionState {
  /** Billings that succeeded so far. */
  totalBillings: number;
  /** Optional cap on successful billings. */
  maxBillings?: number | null;
  /** The date the schedule would bill next. */
  nextDate: Date;
  /** Optional last allowed billing instant (inclusive). */
  endDate?: Date | null;
}

/**
 * A schedule is complete when its successful billings reach `maxBillings`, or when its next
 * date would pass `endDate` (a billing exactly at `endDate` still happens: inclusive).
 */
export function isComplete(s: CompletionState): boolean {
  if (s.maxBillings != null && s.totalBillings >= s.maxBillings) return true;
  if (s.endDate != null) {
    assertInstant(s.endDate, 'endDate');
    assertInstant(s.nextDate, 'nextDate');
    if (s.nextDate.getTime() > s.endDate.getTime()) return true;
  }
  return false;
}

export interface ScheduleInput {
  frequency: unknown;
  interval?: unknown;
  startDate: Date;
  endDate?: Date | null;
  maxBillings?: unknown;
}

/**
 * The problems of a schedule's date inputs ([] when fine), as `{path, message}` for the
 * endpoint's 400 `Invalid request parameters`. Whether startDate may be in the past is
 * the endpoint's call (it knows "now").
 */
export function scheduleProblems(s: ScheduleInput): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  if (!isFrequency(s.frequency)) out.push({ path: 'frequency', message: `must be one of ${FREQUENCIES.join(', ')}` });
  if (s.interval !== undefined && !isValidInterval(s.interval)) {
    out.push({ path: 'interval', message: `must be a whole number from 1 to ${MAX_INTERVAL}` });
  }
  const startOk = s.startDate instanceof Date && !Number.isNaN(s.startDate.getTime()) && s.startDate.getTime() <= MAX_INSTANT;
  if (!startOk) out.push({ path: 'startDate', message: 'must be a valid date-time' });
  if (s.endDate != null) {
    if (!(s.endDate instanceof Date) || Number.isNaN(s.endDate.getTime())) {
      out.push({ path: 'endDate', message: 'must be a valid date-time' });
    } else if (startOk && s.endDate.getTime() < s.startDate.getTime()) {
      out.push({ path: 'endDate', message: 'must not be before startDate' });
    }
  }
  if (s.maxBillings !== undefined && s.maxBillings !== null) {
    if (typeof s.maxBillings !== 'number' || !Number.isSafeInteger(s.maxBillings) || s.maxBillings < 1) {
      out.push({ path: 'maxBillings', message: 'must be a whole number of at least 1' });
    }
  }
  return out;
}
