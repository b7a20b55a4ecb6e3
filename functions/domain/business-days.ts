/**
 * Nigerian business days (DESIGN 5 "Settlement: next Nigerian business day", spec rules 9
 * and 10). Pure: the holiday table is in the code.
 *
 * A business day is a Monday..Friday Lagos calendar date that is not a Nigerian public
 * holiday. Holidays:
 *
 * - Fixed (Public Holidays Act): Jan 1 New Year's Day, May 1 Workers' Day, Jun 12 Democracy
 *   Day, Oct 1 Independence Day, Dec 25 Christmas Day, Dec 26 Boxing Day.
 * - Weekend substitution: when a fixed holiday falls on a Saturday or Sunday, the Federal
 *   Government usually declares the following Monday a holiday. When that Monday is itself
 *   a holiday (Christmas on Saturday, Boxing Day on Sunday), the substitute is the next
 *   weekday that is not already a holiday (2021: Dec 27 and Dec 28). Applied to fixed
 *   holidays only; the movable ones below are listed as declared.
 * - Easter: Good Friday and Easter Monday, computed for any year from Easter Sunday
 *   (anonymous Gregorian algorithm, "Meeus/Jones/Butcher").
 * - Islamic holidays follow the lunar calendar and moon sighting; the Federal Government
 *   declares the days each year, usually a few days ahead. Eid al-Fitr and Eid al-Adha are
 *   declared as two days (the Eid day and the next; days falling on a weekend move to the
 *   following weekdays), Eid al-Mawlid as one (a weekend day moves to Monday). The table
 *   `DECLARED_ISLAMIC_HOLIDAYS` holds the expected declared weekdays for 2025-2030: 2025 as
 *   declared, later years derived from the Umm al-Qura calendar with that rule. Moon
 *   sighting can move a date by a day. MAINTENANCE: when the Federal Government announces a
 *   date, correct the table; before 2030 ends, add the following years.
 *
 * Outside 2025-2030 the weekend, fixed, substitution and Easter rules still apply, but no
 * Islamic holiday is known (see `holidayTableCovers`). Other days the Federal Government
 * declares ad hoc (e.g. May 29 in an inauguration year) are not in the table.
 */
import { addDays, dayNumber, endOfLagosDay, fromDayNumber, isWeekend, lagosDate, startOfLagosDay, type LagosDate } from './lagos-time';

/** Years for which the table of declared Islamic holidays is filled in. */
export const HOLIDAY_TABLE_YEARS = { first: 2025, last: 2030 } as const;

/** True when `year`'s movable Islamic holidays are in the table. */
export const holidayTableCovers = (year: number): boolean => year >= HOLIDAY_TABLE_YEARS.first && year <= HOLIDAY_TABLE_YEARS.last;

/** Expected declared days off for the Islamic holidays (weekdays, Lagos dates). */
export const DECLARED_ISLAMIC_HOLIDAYS: Readonly<Record<number, ReadonlyArray<readonly [LagosDate, string]>>> = {
  2025: [
    ['2025-03-31', 'Eid al-Fitr'], // Eid Sun Mar 30 -> declared Mon Mar 31 and Tue Apr 1
    ['2025-04-01', 'Eid al-Fitr holiday'],
    ['2025-06-06', 'Eid al-Adha'], // Fri Jun 6 -> Fri Jun 6 and Mon Jun 9
    ['2025-06-09', 'Eid al-Adha holiday'],
    ['2025-09-05', 'Eid al-Mawlid'],
  ],
  2026: [
    ['2026-03-20', 'Eid al-Fitr'], // Fri Mar 20 (expected)
    ['2026-03-23', 'Eid al-Fitr holiday'],
    ['2026-05-27', 'Eid al-Adha'], // Wed May 27 (expected)
    ['2026-05-28', 'Eid al-Adha holiday'],
    ['2026-08-25', 'Eid al-Mawlid'], // Tue Aug 25 (expected)
  ],
  2027: [
    ['2027-03-09', 'Eid al-Fitr'], // Tue Mar 9 (expected)
    ['2027-03-10', 'Eid al-Fitr holiday'],
    ['2027-05-17', 'Eid al-Adha'], // Sun May 16 (expected) -> Mon May 17, Tue May 18
    ['2027-05-18', 'Eid al-Adha holiday'],
    ['2027-08-16', 'Eid al-Mawlid'], // Sat Aug 14 (expected) -> Mon Aug 16
  ],
  2028: [
    ['2028-02-28', 'Eid al-Fitr'], // Sat Feb 26 (expected) -> Mon Feb 28, Tue Feb 29
    ['2028-02-29', 'Eid al-Fitr holiday'],
    ['2028-05-05', 'Eid al-Adha'], // Fri May 5 (expected) -> Fri May 5, Mon May 8
    ['2028-05-08', 'Eid al-Adha holiday'],
    ['2028-08-03', 'Eid al-Mawlid'], // Thu Aug 3 (expected)
  ],
  2029: [
    ['2029-02-14', 'Eid al-Fitr'], // Wed Feb 14 (expected)
    ['2029-02-15', 'Eid al-Fitr holiday'],
    ['2029-04-24', 'Eid al-Adha'], // Tue Apr 24 (expected)
    ['2029-04-25', 'Eid al-Adha holiday'],
    ['2029-07-24', 'Eid al-Mawlid'], // Tue Jul 24 (expected)
  ],
  2030: [
    ['2030-02-04', 'Eid al-Fitr'], // Mon Feb 4 (expected)
    ['2030-02-05', 'Eid al-Fitr holiday'],
    ['2030-04-15', 'Eid al-Adha'], // Sat Apr 13 (expected) -> Mon Apr 15, Tue Apr 16
    ['2030-04-16', 'Eid al-Adha holiday'],
    ['2030-07-15', 'Eid al-Mawlid'], // Sat Jul 13 (expected) -> Mon Jul 15
  ],
};

/** Fixed-date holidays: [MM-DD, name]. */
export const FIXED_HOLIDAYS: ReadonlyArray<readonly [string, string]> = [
  ['01-01', "New Year's Day"],
  ['05-01', "Workers' Day"],
  ['06-12', 'Democracy Day'],
  ['10-01', 'Independence Day'],
  ['12-25', 'Christmas Day'],
  ['12-26', 'Boxing Day'],
];

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm). */
export function easterSunday(year: number): LagosDate {
  if (!Number.isInteger(year) || year < 1583 || year > 9999) throw new RangeError(`year out of range: ${year}`);
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const cache = new Map<number, ReadonlyMap<LagosDate, string>>();

/**
 * Nigerian public holidays of a year that fall on weekdays (the days they take off work),
 * date -> name, including weekend substitutes ("Democracy Day (substitute)").
 */
export function holidaysOf(year: number): ReadonlyMap<LagosDate, string> {
  const hit = cache.get(year);
  if (hit) return hit;
  const days = new Map<LagosDate, string>();
  const easter = easterSunday(year);
  days.set(addDays(easter, -2), 'Good Friday');
  days.set(addDays(easter, 1), 'Easter Monday');
  for (const [date, name] of DECLARED_ISLAMIC_HOLIDAYS[year] ?? []) days.set(date, name);
  const fixed = FIXED_HOLIDAYS.map(([mmdd, name]) => [`${year}-${mmdd}`, name] as const);
  for (const [date, name] of fixed) if (!isWeekend(date)) days.set(date, name);
  // Substitutes in date order, after every real holiday is known, so that a substitute
  // never lands on another holiday or on an earlier substitute.
  for (const [date, name] of fixed) {
    if (!isWeekend(date)) continue;
    let sub = addDays(date, 1);
    while (isWeekend(sub) || days.has(sub)) sub = addDays(sub, 1);
    days.set(sub, `${name} (substitute)`);
  }
  cache.set(year, days);
  return days;
}

/** The holiday's name when `date` is a weekday off in Nigeria, else undefined. */
export function holidayName(date: LagosDate): string | undefined {
  dayNumber(date); // validates
  return holidaysOf(Number(date.slice(0, 4))).get(date);
}

/** Monday..Friday and not a Nigerian public holiday (or its substitute). */
export function isBusinessDay(date: LagosDate): boolean {
  dayNumber(date); // validates
  return !isWeekend(date) && holidayName(date) === undefined;
}

/** The first business day strictly after `date`. */
export function nextBusinessDay(date: LagosDate): LagosDate {
  let d = addDays(date, 1);
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/** The last business day strictly before `date`. */
export function previousBusinessDay(date: LagosDate): LagosDate {
  let d = addDays(date, -1);
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/**
 * The `n`-th business day after `date` (n > 0), or before it (n < 0). `n = 0` returns
 * `date` unchanged, business day or not. Counting starts the day after `date`.
 */
export function addBusinessDays(date: LagosDate, n: number): LagosDate {
  if (!Number.isSafeInteger(n)) throw new RangeError(`n must be an integer, got ${n}`);
  let d = fromDayNumber(dayNumber(date));
  for (let i = 0; i < Math.abs(n); i++) d = n > 0 ? nextBusinessDay(d) : previousBusinessDay(d);
  return d;
}

/**
 * When funds captured at `capturedAt` settle: 00:00 Lagos on the first Nigerian business
 * day strictly after the Lagos date of capture (a capture on a business day settles the
 * next business day; one on a weekend or holiday settles on the first business day after
 * it). `at.toISOString()` is the balance's `nextSettlement.date`.
 */
export function settlementDate(capturedAt: Date): { date: LagosDate; at: Date } {
  const date = nextBusinessDay(lagosDate(capturedAt));
  return { date, at: startOfLagosDay(date) };
}

/** Refunds typically take 1 to 3 business days (spec rule 9). */
export const REFUND_MAX_BUSINESS_DAYS = 3;

/**
 * When a refund initiated at `initiatedAt` is expected to be complete: the END of the 3rd
 * business day after the Lagos date of initiation, i.e. its last millisecond
 * (23:59:59.999 Lagos), so the date printed in the instant is the deadline day itself.
 */
export function refundExpectedBy(initiatedAt: Date): Date {
  const date = addBusinessDays(lagosDate(initiatedAt), REFUND_MAX_BUSINESS_DAYS);
  return new Date(endOfLagosDay(date).getTime() - 1);
}
