import { describe, expect, it } from 'vitest';
import {
  FREQUENCIES,
  MAX_INTERVAL,
  isComplete,
  isValidInterval,
  nextBillingDate,
  occurrenceAfter,
  scheduleProblems,
  type Frequency,
} from '../../functions/domain/schedule-dates';

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();
const series = (anchor: string, f: Frequency, interval: number, count: number) =>
  Array.from({ length: count }, (_, n) => iso(nextBillingDate(at(anchor), f, interval, n)));

describe('nextBillingDate: monthly, computed from the anchor', () => {
  it('n = 0 is the anchor (startDate)', () => {
    expect(iso(nextBillingDate(at('2026-11-22T09:15:30.250Z'), 'monthly', 1, 0))).toBe('2026-11-22T09:15:30.250Z');
  });

  it('from Jan 31 2026: clamps to Feb 28, Apr 30, Jun 30 and returns to the 31st', () => {
    expect(series('2026-01-31T09:00:00Z', 'monthly', 1, 8)).toEqual([
      '2026-01-31T09:00:00.000Z',
      '2026-02-28T09:00:00.000Z',
      '2026-03-31T09:00:00.000Z',
      '2026-04-30T09:00:00.000Z',
      '2026-05-31T09:00:00.000Z',
      '2026-06-30T09:00:00.000Z',
      '2026-07-31T09:00:00.000Z',
      '2026-08-31T09:00:00.000Z',
    ]);
  });

  it('from Jan 31 2028 (leap year): Feb 29', () => {
    expect(iso(nextBillingDate(at('2028-01-31T09:00:00Z'), 'monthly', 1, 1))).toBe('2028-02-29T09:00:00.000Z');
    expect(iso(nextBillingDate(at('2028-01-31T09:00:00Z'), 'monthly', 1, 2))).toBe('2028-03-31T09:00:00.000Z');
  });

  it('from the 30th: Feb clamps, then back to the 30th', () => {
    expect(series('2026-01-30T09:00:00Z', 'monthly', 1, 3)).toEqual([
      '2026-01-30T09:00:00.000Z',
      '2026-02-28T09:00:00.000Z',
      '2026-03-30T09:00:00.000Z',
    ]);
  });

  it('interval 3 across the year end', () => {
    expect(series('2026-11-30T08:00:00Z', 'monthly', 3, 4)).toEqual([
      '2026-11-30T08:00:00.000Z',
      '2027-02-28T08:00:00.000Z',
      '2027-05-30T08:00:00.000Z',
      '2027-08-30T08:00:00.000Z',
    ]);
  });

  it('never drifts: the 24th occurrence from Jan 31 is Jan 31 two years later', () => {
    expect(iso(nextBillingDate(at('2026-01-31T09:00:00Z'), 'monthly', 1, 24))).toBe('2028-01-31T09:00:00.000Z');
    expect(iso(nextBillingDate(at('2026-01-31T09:00:00Z'), 'monthly', 1, 25))).toBe('2028-02-29T09:00:00.000Z');
  });

  it('months are Lagos months: an anchor at Jan 31 00:30 Lagos (Jan 30 23:30Z) bills on the last Lagos day of February', () => {
    // In UTC the anchor is the 30th; in Lagos (where the customer and the monthly limit live)
    // it is the 31st. Occurrences keep 23:30Z (00:30 Lagos).
    expect(series('2026-01-30T23:30:00Z', 'monthly', 1, 4)).toEqual([
      '2026-01-30T23:30:00.000Z', // Jan 31 00:30 Lagos
      '2026-02-27T23:30:00.000Z', // Feb 28 00:30 Lagos (UTC month math would give Mar 1 Lagos)
      '2026-03-30T23:30:00.000Z', // Mar 31 00:30 Lagos
      '2026-04-29T23:30:00.000Z', // Apr 30 00:30 Lagos
    ]);
  });
});

describe('nextBillingDate: yearly', () => {
  it('from Feb 29 2028: Feb 28 in common years, Feb 29 in leap years', () => {
    expect(series('2028-02-29T10:00:00Z', 'yearly', 1, 5)).toEqual([
      '2028-02-29T10:00:00.000Z',
      '2029-02-28T10:00:00.000Z',
      '2030-02-28T10:00:00.000Z',
      '2031-02-28T10:00:00.000Z',
      '2032-02-29T10:00:00.000Z',
    ]);
  });

  it('2100 is not a leap year', () => {
    expect(iso(nextBillingDate(at('2096-02-29T10:00:00Z'), 'yearly', 4, 1))).toBe('2100-02-28T10:00:00.000Z');
    expect(iso(nextBillingDate(at('2096-02-29T10:00:00Z'), 'yearly', 4, 2))).toBe('2104-02-29T10:00:00.000Z');
  });

  it('interval 2', () => {
    expect(series('2026-11-22T10:00:00Z', 'yearly', 2, 3)).toEqual([
      '2026-11-22T10:00:00.000Z',
      '2028-11-22T10:00:00.000Z',
      '2030-11-22T10:00:00.000Z',
    ]);
  });
});

describe('nextBillingDate: daily and weekly', () => {
  it('weekly, interval 2', () => {
    expect(series('2026-11-23T09:00:00Z', 'weekly', 2, 4)).toEqual([
      '2026-11-23T09:00:00.000Z',
      '2026-12-07T09:00:00.000Z',
      '2026-12-21T09:00:00.000Z',
      '2027-01-04T09:00:00.000Z',
    ]);
  });

  it('daily, interval 3, across a month end and a leap day', () => {
    expect(series('2028-02-25T07:45:00Z', 'daily', 3, 4)).toEqual([
      '2028-02-25T07:45:00.000Z',
      '2028-02-28T07:45:00.000Z',
      '2028-03-02T07:45:00.000Z',
      '2028-03-05T07:45:00.000Z',
    ]);
  });

  it('daily, interval 1: the 365th occurrence of 2026 is the same time a year later', () => {
    expect(iso(nextBillingDate(at('2026-01-01T06:00:00Z'), 'daily', 1, 365))).toBe('2027-01-01T06:00:00.000Z');
  });

  it('keeps the time of day (UTC) for every frequency', () => {
    for (const f of FREQUENCIES) {
      for (let n = 0; n < 30; n++) {
        expect(iso(nextBillingDate(at('2026-01-31T17:42:13.007Z'), f, 1, n)).slice(10)).toBe('T17:42:13.007Z');
      }
    }
  });
});

describe('input validation', () => {
  it('interval is an integer 1..366', () => {
    expect(MAX_INTERVAL).toBe(366);
    for (const ok of [1, 2, 366]) expect(isValidInterval(ok)).toBe(true);
    for (const bad of [0, -1, 367, 1.5, Number.NaN, '2', null]) expect(isValidInterval(bad)).toBe(false);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 0, 1)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 367, 1)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 1.5, 1)).toThrow(RangeError);
  });

  it('anchor must be a valid date, n a non-negative integer, frequency known', () => {
    expect(() => nextBillingDate(new Date('x'), 'daily', 1, 1)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 1, -1)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 1, 0.5)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'hourly' as Frequency, 1, 1)).toThrow(RangeError);
  });

  it('dates past year 9999 are refused, not wrapped', () => {
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'yearly', 366, 30)).toThrow(RangeError);
    expect(() => nextBillingDate(at('2026-01-01T00:00:00Z'), 'daily', 366, 10_000)).toThrow(RangeError);
  });

  it('scheduleProblems lists every problem with its path', () => {
    expect(scheduleProblems({ frequency: 'monthly', interval: 1, startDate: at('2026-12-01T00:00:00Z') })).toEqual([]);
    expect(
      scheduleProblems({
        frequency: 'hourly',
        interval: 0,
        startDate: new Date('x'),
        endDate: new Date('y'),
        maxBillings: 0,
      }).map((p) => p.path),
    ).toEqual(['frequency', 'interval', 'startDate', 'endDate', 'maxBillings']);
    expect(scheduleProblems({ frequency: 'daily', startDate: at('2026-12-02T00:00:00Z'), endDate: at('2026-12-01T00:00:00Z') })).toEqual([
      { path: 'endDate', message: 'must not be before startDate' },
    ]);
    expect(scheduleProblems({ frequency: 'daily', startDate: at('2026-12-02T00:00:00Z'), maxBillings: 2.5 })).toEqual([
      { path: 'maxBillings', message: 'must be a whole number of at least 1' },
    ]);
    expect(
      scheduleProblems({ frequency: 'daily', startDate: at('2026-12-02T00:00:00Z'), endDate: at('2026-12-02T00:00:00Z'), maxBillings: 1 }),
    ).toEqual([]);
  });
});

describe('occurrenceAfter (resume: missed periods are skipped, next date never in the past)', () => {
  const anchor = at('2026-01-31T09:00:00Z');

  it('before the anchor: the anchor itself (n = 0)', () => {
    expect(occurrenceAfter(anchor, 'monthly', 1, at('2026-01-01T00:00:00Z'))).toEqual({ n: 0, date: anchor });
  });

  it('strictly after: at the anchor gives the next one', () => {
    expect(occurrenceAfter(anchor, 'monthly', 1, anchor)).toEqual({ n: 1, date: at('2026-02-28T09:00:00Z') });
  });

  it('paused in February, resumed May 15: Feb 28, Mar 31 and Apr 30 are skipped; next is May 31 (n = 4)', () => {
    expect(occurrenceAfter(anchor, 'monthly', 1, at('2026-05-15T12:00:00Z'))).toEqual({ n: 4, date: at('2026-05-31T09:00:00Z') });
  });

  it('resumed exactly at a due instant: that one is not in the future, so the next', () => {
    expect(occurrenceAfter(anchor, 'monthly', 1, at('2026-04-30T09:00:00Z'))).toEqual({ n: 4, date: at('2026-05-31T09:00:00Z') });
    expect(occurrenceAfter(anchor, 'monthly', 1, at('2026-04-30T08:59:59.999Z'))).toEqual({ n: 3, date: at('2026-04-30T09:00:00Z') });
  });

  it('daily and weekly with intervals', () => {
    expect(occurrenceAfter(at('2026-11-23T09:00:00Z'), 'weekly', 2, at('2026-12-20T00:00:00Z'))).toEqual({
      n: 2,
      date: at('2026-12-21T09:00:00Z'),
    });
    expect(occurrenceAfter(at('2026-11-01T09:00:00Z'), 'daily', 3, at('2026-11-10T09:00:00Z'))).toEqual({
      n: 4,
      date: at('2026-11-13T09:00:00Z'),
    });
  });

  it('yearly from Feb 29', () => {
    expect(occurrenceAfter(at('2028-02-29T10:00:00Z'), 'yearly', 1, at('2030-06-01T00:00:00Z'))).toEqual({
      n: 3,
      date: at('2031-02-28T10:00:00Z'),
    });
  });

  it('agrees with a linear scan for many anchors, frequencies, intervals and instants', () => {
    const anchors = ['2026-01-31T09:00:00Z', '2028-02-29T23:30:00Z', '2026-11-22T00:00:00Z', '2027-12-31T22:59:59Z'];
    const mismatches: string[] = [];
    for (const a of anchors) {
      for (const f of FREQUENCIES) {
        for (const interval of [1, 2, 3, 7, 13]) {
          const occurrences = Array.from({ length: 40 }, (_, n) => nextBillingDate(at(a), f, interval, n).getTime());
          for (let i = 0; i < 60; i++) {
            // instants spread over the span, plus exact occurrence instants
            const span = occurrences[occurrences.length - 2]! - occurrences[0]!;
            const probes = [occurrences[0]! + Math.floor((span * i) / 60), occurrences[i % 38]!];
            for (const t of probes) {
              const expected = occurrences.findIndex((o) => o > t);
              const got = occurrenceAfter(at(a), f, interval, new Date(t));
              if (got.n !== expected || got.date.getTime() !== occurrences[expected]) {
                mismatches.push(`${a} ${f}×${interval} after ${new Date(t).toISOString()}: ${got.n} != ${expected}`);
              }
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('occurrences strictly increase with n (month-end clamping never reorders)', () => {
    for (const f of FREQUENCIES) {
      let prev = -Infinity;
      for (let n = 0; n < 120; n++) {
        const t = nextBillingDate(at('2028-01-31T12:00:00Z'), f, 1, n).getTime();
        expect(t).toBeGreaterThan(prev);
        prev = t;
      }
    }
  });
});

describe('isComplete', () => {
  const next = at('2026-12-31T09:00:00Z');

  it('not complete without bounds', () => {
    expect(isComplete({ totalBillings: 500, nextDate: next })).toBe(false);
    expect(isComplete({ totalBillings: 500, maxBillings: null, endDate: null, nextDate: next })).toBe(false);
  });

  it('complete when successful billings reach maxBillings', () => {
    expect(isComplete({ totalBillings: 2, maxBillings: 3, nextDate: next })).toBe(false);
    expect(isComplete({ totalBillings: 3, maxBillings: 3, nextDate: next })).toBe(true);
    expect(isComplete({ totalBillings: 4, maxBillings: 3, nextDate: next })).toBe(true);
  });

  it('complete when the next date would pass endDate (a billing exactly at endDate still happens)', () => {
    expect(isComplete({ totalBillings: 1, nextDate: next, endDate: at('2026-12-31T09:00:00Z') })).toBe(false);
    expect(isComplete({ totalBillings: 1, nextDate: next, endDate: at('2026-12-31T08:59:59.999Z') })).toBe(true);
    expect(isComplete({ totalBillings: 1, nextDate: next, endDate: at('2027-01-01T00:00:00Z') })).toBe(false);
  });

  it('either bound completes; a monthly schedule with maxBillings 3 completes after its 3rd success', () => {
    const anchor = at('2026-01-31T09:00:00Z');
    const runs: string[] = [];
    let total = 0;
    for (let n = 0; ; n++) {
      const date = nextBillingDate(anchor, 'monthly', 1, n);
      if (isComplete({ totalBillings: total, maxBillings: 3, nextDate: date, endDate: at('2026-12-31T00:00:00Z') })) break;
      runs.push(iso(date));
      total++;
    }
    expect(runs).toEqual(['2026-01-31T09:00:00.000Z', '2026-02-28T09:00:00.000Z', '2026-03-31T09:00:00.000Z']);
  });

  it('endDate stops a schedule before maxBillings', () => {
    const anchor = at('2026-01-31T09:00:00Z');
    const end = at('2026-04-30T09:00:00Z'); // inclusive
    const runs: string[] = [];
    for (let n = 0; ; n++) {
      const date = nextBillingDate(anchor, 'monthly', 1, n);
      if (isComplete({ totalBillings: n, maxBillings: 12, nextDate: date, endDate: end })) break;
      runs.push(iso(date).slice(0, 10));
    }
    expect(runs).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
  });
});
