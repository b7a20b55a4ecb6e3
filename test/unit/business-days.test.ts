import { describe, expect, it } from 'vitest';
import {
  DECLARED_ISLAMIC_HOLIDAYS,
  HOLIDAY_TABLE_YEARS,
  addBusinessDays,
  easterSunday,
  holidayName,
  holidayTableCovers,
  holidaysOf,
  isBusinessDay,
  nextBusinessDay,
  previousBusinessDay,
  refundExpectedBy,
  settlementDate,
} from '../../functions/domain/business-days';
import { isoWeekday } from '../../functions/domain/lagos-time';

const at = (iso: string) => new Date(iso);

describe('Easter (anonymous Gregorian algorithm)', () => {
  it.each([
    [2000, '2000-04-23'],
    [2019, '2019-04-21'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2028, '2028-04-16'],
    [2029, '2029-04-01'],
    [2030, '2030-04-21'],
    [2038, '2038-04-25'], // latest possible date
    [2285, '2285-03-22'], // earliest possible date
  ])('%d: %s', (year, date) => {
    expect(easterSunday(year)).toBe(date);
  });

  it('2026: Good Friday Apr 3 and Easter Monday Apr 6 are holidays', () => {
    expect(holidayName('2026-04-03')).toBe('Good Friday');
    expect(holidayName('2026-04-06')).toBe('Easter Monday');
    expect(isBusinessDay('2026-04-03')).toBe(false);
    expect(isBusinessDay('2026-04-06')).toBe(false);
    expect(isBusinessDay('2026-04-02')).toBe(true);
    expect(isBusinessDay('2026-04-07')).toBe(true);
  });
});

describe('holiday table', () => {
  it('the full list of weekdays off in 2026', () => {
    expect([...holidaysOf(2026).entries()].sort()).toEqual([
      ['2026-01-01', "New Year's Day"],
      ['2026-03-20', 'Eid al-Fitr'],
      ['2026-03-23', 'Eid al-Fitr holiday'],
      ['2026-04-03', 'Good Friday'],
      ['2026-04-06', 'Easter Monday'],
      ['2026-05-01', "Workers' Day"],
      ['2026-05-27', 'Eid al-Adha'],
      ['2026-05-28', 'Eid al-Adha holiday'],
      ['2026-06-12', 'Democracy Day'],
      ['2026-08-25', 'Eid al-Mawlid'],
      ['2026-10-01', 'Independence Day'],
      ['2026-12-25', 'Christmas Day'],
      ['2026-12-28', 'Boxing Day (substitute)'], // Dec 26 2026 is a Saturday
    ]);
  });

  it('covers 2025-2030 with the declared Islamic holidays: 5 weekdays a year inside the year', () => {
    expect(HOLIDAY_TABLE_YEARS).toEqual({ first: 2025, last: 2030 });
    for (let y = 2025; y <= 2030; y++) {
      expect(holidayTableCovers(y)).toBe(true);
      const days = DECLARED_ISLAMIC_HOLIDAYS[y] ?? [];
      expect(days).toHaveLength(5);
      for (const [date] of days) {
        expect(date.startsWith(`${y}-`)).toBe(true);
        expect(isoWeekday(date)).toBeLessThanOrEqual(5);
        expect(isBusinessDay(date)).toBe(false);
      }
    }
    expect(holidayTableCovers(2024)).toBe(false);
    expect(holidayTableCovers(2031)).toBe(false);
  });

  it('every year 2025-2030: all holidays are weekdays and no two collapse onto one day', () => {
    for (let y = 2025; y <= 2030; y++) {
      const days = holidaysOf(y);
      // 6 fixed (or their substitutes) + 2 Easter + 5 Islamic
      expect(days.size).toBe(13);
      for (const date of days.keys()) expect(isoWeekday(date)).toBeLessThanOrEqual(5);
    }
  });

  it('outside the table, fixed holidays, substitutes and Easter still apply (no Islamic ones)', () => {
    expect(holidayName('2031-01-01')).toBe("New Year's Day");
    expect(holidayName('2031-04-11')).toBe('Good Friday'); // Easter 2031 is Apr 13
    expect(holidaysOf(2031).size).toBe(8);
  });
});

describe('weekend substitution of fixed holidays', () => {
  it('Jun 12 2027 is a Saturday: Monday Jun 14 2027 is the Democracy Day holiday', () => {
    expect(isoWeekday('2027-06-12')).toBe(6);
    expect(holidayName('2027-06-14')).toBe('Democracy Day (substitute)');
    expect(isBusinessDay('2027-06-14')).toBe(false);
    expect(nextBusinessDay('2027-06-11')).toBe('2027-06-15');
  });

  it('Jan 1 2028 (Saturday) -> Monday Jan 3; May 1 2027 (Saturday) -> Monday May 3; Oct 1 2028 (Sunday) -> Monday Oct 2', () => {
    expect(holidayName('2028-01-03')).toBe("New Year's Day (substitute)");
    expect(holidayName('2027-05-03')).toBe("Workers' Day (substitute)");
    expect(holidayName('2028-10-02')).toBe('Independence Day (substitute)');
  });

  it('Christmas on Saturday and Boxing Day on Sunday (2027): Monday Dec 27 and Tuesday Dec 28', () => {
    expect(isoWeekday('2027-12-25')).toBe(6);
    expect(holidayName('2027-12-27')).toBe('Christmas Day (substitute)');
    expect(holidayName('2027-12-28')).toBe('Boxing Day (substitute)');
    expect(nextBusinessDay('2027-12-24')).toBe('2027-12-29');
  });

  it('Christmas on Sunday, Boxing Day on Monday (2022): the substitute moves past Boxing Day to Tuesday Dec 27', () => {
    expect(holidayName('2022-12-26')).toBe('Boxing Day');
    expect(holidayName('2022-12-27')).toBe('Christmas Day (substitute)');
  });
});

describe('business days', () => {
  it('weekends are not business days', () => {
    expect(isBusinessDay('2026-11-21')).toBe(false); // Saturday
    expect(isBusinessDay('2026-11-22')).toBe(false); // Sunday
    expect(isBusinessDay('2026-11-23')).toBe(true); // Monday
    expect(isBusinessDay('2026-11-20')).toBe(true); // Friday
  });

  it('nextBusinessDay is strictly after the date', () => {
    expect(nextBusinessDay('2026-11-23')).toBe('2026-11-24'); // Mon -> Tue
    expect(nextBusinessDay('2026-11-20')).toBe('2026-11-23'); // Fri -> Mon
    expect(nextBusinessDay('2026-11-21')).toBe('2026-11-23'); // Sat -> Mon
    expect(nextBusinessDay('2026-04-02')).toBe('2026-04-07'); // Thu -> Good Friday, weekend, Easter Monday -> Tue
    expect(nextBusinessDay('2026-12-31')).toBe('2027-01-04'); // Thu -> New Year (Fri), weekend -> Mon
  });

  it('previousBusinessDay is strictly before the date', () => {
    expect(previousBusinessDay('2026-11-23')).toBe('2026-11-20');
    expect(previousBusinessDay('2026-04-07')).toBe('2026-04-02');
  });

  it('addBusinessDays counts from the day after; 0 returns the date; negative goes back', () => {
    expect(addBusinessDays('2026-11-20', 0)).toBe('2026-11-20');
    expect(addBusinessDays('2026-11-21', 0)).toBe('2026-11-21');
    expect(addBusinessDays('2026-11-20', 1)).toBe('2026-11-23');
    expect(addBusinessDays('2026-11-20', 5)).toBe('2026-11-27');
    expect(addBusinessDays('2026-12-24', 3)).toBe('2026-12-31'); // 25 Fri hol, 26-27 weekend, 28 substitute
    expect(addBusinessDays('2026-11-23', -1)).toBe('2026-11-20');
    expect(() => addBusinessDays('2026-11-20', 1.5)).toThrow(RangeError);
  });

  it('rejects invalid dates', () => {
    expect(() => isBusinessDay('2026-02-30')).toThrow(RangeError);
    expect(() => nextBusinessDay('tomorrow')).toThrow(RangeError);
  });
});

describe('settlementDate: 00:00 Lagos of the next business day after the Lagos capture date', () => {
  it('a weekday capture settles the next day', () => {
    const s = settlementDate(at('2026-11-23T10:00:00Z')); // Monday
    expect(s.date).toBe('2026-11-24');
    expect(s.at.toISOString()).toBe('2026-11-23T23:00:00.000Z'); // 00:00 Lagos on Nov 24
  });

  it('across a weekend: Friday -> Monday; Saturday or Sunday -> Monday', () => {
    expect(settlementDate(at('2026-11-20T10:00:00Z')).date).toBe('2026-11-23');
    expect(settlementDate(at('2026-11-21T10:00:00Z')).date).toBe('2026-11-23');
    expect(settlementDate(at('2026-11-22T10:00:00Z')).date).toBe('2026-11-23');
  });

  it('the capture date is the Lagos date: Thursday 23:00Z is already Friday in Lagos', () => {
    expect(settlementDate(at('2026-11-19T22:59:59Z')).date).toBe('2026-11-20'); // Thu in Lagos -> Fri
    expect(settlementDate(at('2026-11-19T23:00:00Z')).date).toBe('2026-11-23'); // Fri in Lagos -> Mon
    // Sunday 23:00Z is Monday 00:00 in Lagos: settles Tuesday
    expect(settlementDate(at('2026-11-22T23:00:00Z')).date).toBe('2026-11-24');
  });

  it('across Christmas 2026: Thursday Dec 24 capture settles Tuesday Dec 29', () => {
    // Dec 25 (Fri) Christmas; Dec 26 (Sat) Boxing Day, a weekend day, so its substitute is
    // Monday Dec 28; Dec 26-27 weekend. The first business day after Dec 24 is Tue Dec 29.
    const s = settlementDate(at('2026-12-24T15:00:00Z'));
    expect(s.date).toBe('2026-12-29');
    expect(s.at.toISOString()).toBe('2026-12-28T23:00:00.000Z');
  });

  it('across Easter 2026: Thursday Apr 2 capture settles Tuesday Apr 7', () => {
    expect(settlementDate(at('2026-04-02T09:00:00Z')).date).toBe('2026-04-07');
  });

  it('a capture on a holiday settles on the next business day after it', () => {
    expect(settlementDate(at('2026-06-12T09:00:00Z')).date).toBe('2026-06-15'); // Democracy Day (Fri) -> Mon
  });
});

describe('refundExpectedBy: end (23:59:59.999 Lagos) of the 3rd business day after initiation', () => {
  it('Monday -> Thursday', () => {
    expect(refundExpectedBy(at('2026-11-23T10:00:00Z')).toISOString()).toBe('2026-11-26T22:59:59.999Z');
  });

  it('Thursday Dec 24 2026 -> Thursday Dec 31 (Christmas, weekend and the Boxing Day substitute skipped)', () => {
    expect(refundExpectedBy(at('2026-12-24T10:00:00Z')).toISOString()).toBe('2026-12-31T22:59:59.999Z');
  });

  it('initiated on a Saturday -> Wednesday', () => {
    expect(refundExpectedBy(at('2026-11-21T10:00:00Z')).toISOString()).toBe('2026-11-25T22:59:59.999Z');
  });
});
