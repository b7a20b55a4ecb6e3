import { describe, expect, it } from 'vitest';
import {
  LAGOS_OFFSET_MS,
  addDays,
  daysInMonth,
  endOfLagosDay,
  isLagosDate,
  isoWeekKey,
  isoWeekStart,
  isoWeekday,
  lagosDate,
  lagosIsoString,
  periodEnds,
  periodKeys,
  periodRange,
  startOfLagosDay,
} from '../../functions/domain/lagos-time';

const at = (iso: string) => new Date(iso);

describe('the hard-coded +01:00 offset agrees with the tz database', () => {
  const fmt = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Africa/Lagos',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const viaIntl = (d: Date) => {
    const p = Object.fromEntries(fmt.formatToParts(d).map((x) => [x.type, x.value]));
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
  };
  const viaOffset = (d: Date) => lagosIsoString(d).slice(0, 16).replace('T', ' ');

  it('every 6 hours (and around midnight) from 2024 to 2031', () => {
    const mismatches: string[] = [];
    for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2031, 0, 1); t += 6 * 3600 * 1000) {
      for (const d of [new Date(t), new Date(t + 22 * 3600 * 1000 + 59 * 60 * 1000), new Date(t + 23 * 3600 * 1000)]) {
        if (viaIntl(d) !== viaOffset(d)) mismatches.push(d.toISOString());
        if (viaIntl(d).slice(0, 10) !== lagosDate(d)) mismatches.push(`date ${d.toISOString()}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('offset is one hour', () => {
    expect(LAGOS_OFFSET_MS).toBe(3_600_000);
  });
});

describe('lagosDate and the midnight boundary', () => {
  it.each([
    ['2026-11-22T22:59:59.999Z', '2026-11-22'],
    ['2026-11-22T23:00:00.000Z', '2026-11-23'],
    ['2026-11-22T00:00:00.000Z', '2026-11-22'],
    ['2026-12-31T22:59:59.999Z', '2026-12-31'],
    ['2026-12-31T23:00:00.000Z', '2027-01-01'],
    ['2028-02-28T23:00:00.000Z', '2028-02-29'],
  ])('%s is %s in Lagos', (iso, date) => {
    expect(lagosDate(at(iso))).toBe(date);
  });

  it('throws on an invalid Date', () => {
    expect(() => lagosDate(new Date('nope'))).toThrow(RangeError);
  });

  it('formats with the Lagos offset', () => {
    expect(lagosIsoString(at('2026-11-22T23:00:00Z'))).toBe('2026-11-23T00:00:00.000+01:00');
  });
});

describe('calendar dates', () => {
  it.each(['2026-11-22', '2028-02-29', '2000-02-29', '2026-12-31', '0001-01-01', '9999-12-31'])('%s is valid', (d) => {
    expect(isLagosDate(d)).toBe(true);
  });

  it.each(['2026-02-29', '1900-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-1-5', '2026-11-22T00:00', '', 20261122, null])(
    '%j is not a date',
    (d) => {
      expect(isLagosDate(d)).toBe(false);
    },
  );

  it('adds days across month, year and leap day', () => {
    expect(addDays('2026-11-30', 1)).toBe('2026-12-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
  });

  it('ISO weekdays', () => {
    expect(isoWeekday('2026-11-23')).toBe(1); // Monday
    expect(isoWeekday('2026-11-22')).toBe(7); // Sunday
    expect(isoWeekday('1970-01-01')).toBe(4); // Thursday
    expect(isoWeekday('1969-12-29')).toBe(1); // Monday, before the epoch
  });

  it('days in month', () => {
    expect(daysInMonth(2026, 2)).toBe(28);
    expect(daysInMonth(2028, 2)).toBe(29);
    expect(daysInMonth(2100, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(2026, 4)).toBe(30);
    expect(daysInMonth(2026, 12)).toBe(31);
  });
});

describe('ISO weeks (Monday start, week-year of the Thursday)', () => {
  it.each([
    ['2026-11-16', '2026-W47'], // Monday
    ['2026-11-22', '2026-W47'], // Sunday: same week
    ['2026-11-23', '2026-W48'], // Monday: next week
    ['2025-12-28', '2025-W52'], // Sunday
    ['2025-12-29', '2026-W01'], // Monday of the week holding Jan 1 2026 (a Thursday)
    ['2026-01-01', '2026-W01'],
    ['2026-12-31', '2026-W53'], // 2026 starts on a Thursday: 53 weeks
    ['2027-01-01', '2026-W53'], // Friday Jan 1 2027 belongs to the previous week-year
    ['2027-01-03', '2026-W53'], // Sunday
    ['2027-01-04', '2027-W01'], // Monday
    ['2021-01-03', '2020-W53'],
    ['2024-12-30', '2025-W01'],
    ['2028-01-01', '2027-W52'], // Saturday
  ])('%s is in %s', (date, week) => {
    expect(isoWeekKey(date)).toBe(week);
  });

  it('agrees with a brute-force definition for every day of 2024-2031', () => {
    // Week 1 is the week with the year's first Thursday; count Mondays from there.
    const mismatches: string[] = [];
    for (let d = '2024-01-01'; d < '2032-01-01'; d = addDays(d, 1)) {
      const thursday = addDays(d, 4 - isoWeekday(d));
      const y = thursday.slice(0, 4);
      let firstThursday = `${y}-01-01`;
      while (isoWeekday(firstThursday) !== 4) firstThursday = addDays(firstThursday, 1);
      let week = 1;
      for (let t = firstThursday; t < thursday; t = addDays(t, 7)) week++;
      const expected = `${y}-W${String(week).padStart(2, '0')}`;
      if (isoWeekKey(d) !== expected) mismatches.push(`${d}: ${isoWeekKey(d)} != ${expected}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('isoWeekStart is the Monday of a week key, and rejects weeks that do not exist', () => {
    expect(isoWeekStart('2026-W47')).toBe('2026-11-16');
    expect(isoWeekStart('2026-W01')).toBe('2025-12-29');
    expect(isoWeekStart('2026-W53')).toBe('2026-12-28');
    expect(() => isoWeekStart('2025-W53')).toThrow(RangeError); // 2025 has 52 weeks
    expect(() => isoWeekStart('2026-W54')).toThrow(RangeError);
    expect(() => isoWeekStart('2026-W00')).toThrow(RangeError);
    expect(() => isoWeekStart('2026-47')).toThrow(RangeError);
  });
});

describe('periodKeys (spending-limit periods, Lagos time)', () => {
  it('day, ISO week and month of an instant', () => {
    expect(periodKeys(at('2026-11-22T12:00:00Z'))).toEqual({ day: '2026-11-22', week: '2026-W47', month: '2026-11' });
  });

  it('the Lagos midnight boundary moves all three at once at the turn of a month and week', () => {
    // Sunday Nov 29 23:59:59 Lagos vs Monday Nov 30 00:00 Lagos
    expect(periodKeys(at('2026-11-29T22:59:59Z'))).toEqual({ day: '2026-11-29', week: '2026-W48', month: '2026-11' });
    expect(periodKeys(at('2026-11-29T23:00:00Z'))).toEqual({ day: '2026-11-30', week: '2026-W49', month: '2026-11' });
    // Nov 30 23:00Z is Dec 1 in Lagos (but still Nov 30 in UTC)
    expect(periodKeys(at('2026-11-30T22:59:59Z')).month).toBe('2026-11');
    expect(periodKeys(at('2026-11-30T23:00:00Z')).month).toBe('2026-12');
  });

  it('Nov 22: 22:59:59Z is the 22nd, 23:00:00Z the 23rd (new ISO week too)', () => {
    expect(periodKeys(at('2026-11-22T22:59:59Z'))).toEqual({ day: '2026-11-22', week: '2026-W47', month: '2026-11' });
    expect(periodKeys(at('2026-11-22T23:00:00Z'))).toEqual({ day: '2026-11-23', week: '2026-W48', month: '2026-11' });
  });

  it('across the year end: Dec 31 2026 23:00Z is Jan 1 2027 in Lagos, still ISO week 2026-W53', () => {
    expect(periodKeys(at('2026-12-31T23:00:00Z'))).toEqual({ day: '2027-01-01', week: '2026-W53', month: '2027-01' });
    expect(periodKeys(at('2025-12-28T23:30:00Z'))).toEqual({ day: '2025-12-29', week: '2026-W01', month: '2025-12' });
  });
});

describe('period boundaries as instants', () => {
  it('startOfLagosDay is 23:00Z of the previous UTC day', () => {
    expect(startOfLagosDay('2026-11-23').toISOString()).toBe('2026-11-22T23:00:00.000Z');
    expect(startOfLagosDay('2027-01-01').toISOString()).toBe('2026-12-31T23:00:00.000Z');
    expect(endOfLagosDay('2026-11-22').toISOString()).toBe('2026-11-22T23:00:00.000Z');
    expect(() => startOfLagosDay('2026-02-30')).toThrow(RangeError);
  });

  it('periodEnds gives the exclusive end of the day, week and month', () => {
    expect(periodEnds(at('2026-11-22T12:00:00Z'))).toEqual({
      day: at('2026-11-22T23:00:00Z'),
      week: at('2026-11-22T23:00:00Z'), // Sunday: the week ends at midnight too
      month: at('2026-11-30T23:00:00Z'),
    });
    expect(periodEnds(at('2026-12-31T23:00:00Z'))).toEqual({
      day: at('2027-01-01T23:00:00Z'),
      week: at('2027-01-03T23:00:00Z'),
      month: at('2027-01-31T23:00:00Z'),
    });
  });

  it('every instant lies inside the ranges of its own period keys', () => {
    const probes = ['2026-11-22T22:59:59.999Z', '2026-11-22T23:00:00Z', '2027-01-03T22:59:59Z', '2028-02-29T23:30:00Z'];
    for (const iso of probes) {
      const t = at(iso).getTime();
      const keys = periodKeys(at(iso));
      for (const kind of ['day', 'week', 'month'] as const) {
        const r = periodRange(kind, keys[kind]);
        expect(r.start.getTime()).toBeLessThanOrEqual(t);
        expect(r.end.getTime()).toBeGreaterThan(t);
      }
    }
  });

  it('periodRange validates the key', () => {
    expect(periodRange('month', '2028-02')).toEqual({ start: at('2028-01-31T23:00:00Z'), end: at('2028-02-29T23:00:00Z') });
    expect(periodRange('week', '2026-W53')).toEqual({ start: at('2026-12-27T23:00:00Z'), end: at('2027-01-03T23:00:00Z') });
    expect(() => periodRange('month', '2026-13')).toThrow(RangeError);
    expect(() => periodRange('month', '2026-1')).toThrow(RangeError);
    expect(() => periodRange('day', '2026-11')).toThrow(RangeError);
  });
});
