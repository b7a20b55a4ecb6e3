/**
 * Africa/Lagos calendar rules (DESIGN 5: spending-limit periods, settlement days). Pure.
 *
 * Africa/Lagos is West Africa Time, UTC+01:00 all year: Nigeria has not observed daylight
 * saving time since 1978 (IANA tz data), so the offset is hard-coded rather than looked up
 * per instant. A unit test compares these functions with
 * `Intl.DateTimeFormat('en-GB', { timeZone: 'Africa/Lagos' })` to catch a change in the tz
 * data. Calendar dates are `YYYY-MM-DD` strings (a date in Lagos, no time zone).
 */

export const LAGOS_TIME_ZONE = 'Africa/Lagos';
/** UTC+01:00, no DST. */
export const LAGOS_OFFSET_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** A calendar date in Lagos, `YYYY-MM-DD`. */
export type LagosDate = string;

export interface PeriodKeys {
  /** `2026-11-22` */
  day: string;
  /** ISO 8601 week (Monday start, week-year rules): `2026-W47` */
  week: string;
  /** `2026-11` */
  month: string;
}

export type PeriodKind = keyof PeriodKeys;
export const PERIOD_KINDS: readonly PeriodKind[] = ['day', 'week', 'month'];

const DATE_FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Throws unless `instant` is a valid Date. */
export function assertInstant(instant: Date, what = 'instant'): void {
  if (!(instant instanceof Date) || Number.isNaN(instant.getTime())) {
    throw new RangeError(`${what} must be a valid Date`);
  }
}

/** Days since 1970-01-01 of a valid `YYYY-MM-DD`, or undefined (Feb 30, 2026-13-01, ...). */
function dayNumberOf(date: string): number | undefined {
  const m = typeof date === 'string' ? DATE_FORMAT.exec(date) : null;
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d); // setUTCFullYear keeps years 0..99 literal
  return Math.round(t.getTime() / DAY_MS);
}

/** Days since 1970-01-01 of a Lagos date; throws on an invalid one. */
export function dayNumber(date: LagosDate): number {
  const n = dayNumberOf(date);
  if (n === undefined) throw new RangeError(`not a valid YYYY-MM-DD date: ${String(date)}`);
  return n;
}

/** The `YYYY-MM-DD` of a day number (inverse of `dayNumber`). */
export function fromDayNumber(n: number): LagosDate {
  if (!Number.isSafeInteger(n)) throw new RangeError(`day number must be an integer, got ${n}`);
  const t = new Date(n * DAY_MS);
  const y = t.getUTCFullYear();
  if (y < 1 || y > 9999) throw new RangeError('date out of range (years 0001..9999)');
  return `${String(y).padStart(4, '0')}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** A real calendar date in `YYYY-MM-DD` form. */
export const isLagosDate = (v: unknown): v is LagosDate => typeof v === 'string' && dayNumberOf(v) !== undefined;

export const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Days in month `month` (1..12) of year `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The calendar date `n` days after (negative: before) `date`. */
export const addDays = (date: LagosDate, n: number): LagosDate => fromDayNumber(dayNumber(date) + n);

/** ISO weekday of a date: Monday 1 .. Sunday 7. */
export function isoWeekday(date: LagosDate): number {
  // 1970-01-01 was a Thursday (4).
  return ((((dayNumber(date) + 3) % 7) + 7) % 7) + 1;
}

export const isWeekend = (date: LagosDate): boolean => isoWeekday(date) >= 6;

/**
 * ISO 8601 week key `YYYY-Www` of a date: weeks start on Monday and belong to the year of
 * their Thursday, so 2027-01-01 (a Friday) is in 2026-W53 and 2025-12-29 (a Monday) in 2026-W01.
 */
export function isoWeekKey(date: LagosDate): string {
  const n = dayNumber(date);
  const thursday = fromDayNumber(n - isoWeekday(date) + 4);
  const weekYear = thursday.slice(0, 4);
  const ordinal = dayNumber(thursday) - dayNumber(`${weekYear}-01-01`); // 0-based day of year
  return `${weekYear}-W${pad2(Math.floor(ordinal / 7) + 1)}`;
}

/** The calendar date in Lagos of an instant. 2026-11-22T22:59:59Z -> 2026-11-22; 23:00:00Z -> 2026-11-23. */
export function lagosDate(instant: Date): LagosDate {
  assertInstant(instant);
  return fromDayNumber(Math.floor((instant.getTime() + LAGOS_OFFSET_MS) / DAY_MS));
}

/** The instant as an ISO 8601 date-time with the Lagos offset: `2026-11-23T00:00:00.000+01:00`. */
export function lagosIsoString(instant: Date): string {
  assertInstant(instant);
  return new Date(instant.getTime() + LAGOS_OFFSET_MS).toISOString().replace('Z', '+01:00');
}

/** Spending-limit period keys of an instant, all in Lagos time (DESIGN 5). */
export function periodKeys(instant: Date): PeriodKeys {
  const day = lagosDate(instant);
  return { day, week: isoWeekKey(day), month: day.slice(0, 7) };
}

/** The UTC instant of 00:00 in Lagos on `date` (2026-11-23 -> 2026-11-22T23:00:00.000Z). */
export function startOfLagosDay(date: LagosDate): Date {
  return new Date(dayNumber(date) * DAY_MS - LAGOS_OFFSET_MS);
}

/** The first instant after `date` in Lagos (00:00 Lagos of the next day; exclusive end). */
export const endOfLagosDay = (date: LagosDate): Date => startOfLagosDay(addDays(date, 1));

/** Monday (Lagos date) of an ISO week key `YYYY-Www`; throws on a malformed or nonexistent week (2026-W54, 2025-W53). */
export function isoWeekStart(weekKey: string): LagosDate {
  const m = typeof weekKey === 'string' ? /^(\d{4})-W(\d{2})$/.exec(weekKey) : null;
  if (m) {
    const jan4 = `${m[1]}-01-04`; // always in week 1
    const monday = addDays(jan4, 1 - isoWeekday(jan4) + (Number(m[2]) - 1) * 7);
    if (Number(m[2]) >= 1 && isoWeekKey(monday) === weekKey) return monday;
  }
  throw new RangeError(`not a valid ISO week key: ${String(weekKey)}`);
}

/**
 * The Lagos period a key names, as instants: `start` inclusive, `end` exclusive.
 * `periodRange('month', '2026-11')` -> 2026-10-31T23:00Z .. 2026-11-30T23:00Z.
 */
export function periodRange(kind: PeriodKind, key: string): { start: Date; end: Date } {
  if (kind === 'day') return { start: startOfLagosDay(key), end: endOfLagosDay(key) };
  if (kind === 'week') {
    const monday = isoWeekStart(key);
    return { start: startOfLagosDay(monday), end: startOfLagosDay(addDays(monday, 7)) };
  }
  const m = typeof key === 'string' ? /^(\d{4})-(\d{2})$/.exec(key) : null;
  if (!m || !isLagosDate(`${key}-01`)) throw new RangeError(`not a valid month key: ${String(key)}`);
  const first = `${key}-01`;
  return { start: startOfLagosDay(first), end: startOfLagosDay(addDays(first, daysInMonth(Number(m[1]), Number(m[2])))) };
}

/**
 * Exclusive end of each period containing `instant` (the start of the next day, ISO week
 * and month in Lagos). After it, that period's spending counter no longer matters: a TTL
 * hint for counters, and the test for "has this reservation's period ended".
 */
export function periodEnds(instant: Date): Record<PeriodKind, Date> {
  const keys = periodKeys(instant);
  return {
    day: periodRange('day', keys.day).end,
    week: periodRange('week', keys.week).end,
    month: periodRange('month', keys.month).end,
  };
}
