import { describe, expect, it } from 'vitest';
import { periodKeys } from '../../functions/domain/lagos-time';
import {
  MONTH_COUNTER_RETENTION_SECONDS,
  WEEK_COUNTER_RETENTION_SECONDS,
  checkLimits,
  counterExpiresAt,
  dayAttribute,
  limitConditions,
  limitCounterKeys,
  limitRelease,
  usedFromCounters,
} from '../../functions/domain/limits';

const keys = periodKeys(new Date('2026-11-22T12:00:00Z')); // day 2026-11-22, week 2026-W47, month 2026-11
const DEC = 'dec_0000000000000000000001';

describe('checkLimits at the boundaries', () => {
  it('no limits: anything passes', () => {
    expect(checkLimits({}, 10_000_000_000, { day: 1e9, week: 1e9, month: 1e9 })).toEqual({ ok: true });
  });

  it('single: exactly at the limit passes, one kobo over fails', () => {
    expect(checkLimits({ single: 50_000 }, 50_000)).toEqual({ ok: true });
    expect(checkLimits({ single: 50_000 }, 50_001)).toEqual({ ok: false, limit: 'single' });
  });

  it.each([
    ['daily', 'day'],
    ['weekly', 'week'],
    ['monthly', 'month'],
  ] as const)('%s: used + amount exactly at the limit passes, one kobo over fails', (limit, period) => {
    expect(checkLimits({ [limit]: 100_000 }, 40_000, { [period]: 60_000 })).toEqual({ ok: true });
    expect(checkLimits({ [limit]: 100_000 }, 40_001, { [period]: 60_000 })).toEqual({ ok: false, limit });
    expect(checkLimits({ [limit]: 100_000 }, 40_000, { [period]: 60_001 })).toEqual({ ok: false, limit });
    expect(checkLimits({ [limit]: 100_000 }, 100_000)).toEqual({ ok: true });
    expect(checkLimits({ [limit]: 100_000 }, 100_001)).toEqual({ ok: false, limit });
  });

  it('a period limit only looks at its own period', () => {
    expect(checkLimits({ daily: 1000 }, 500, { week: 999_999, month: 999_999 })).toEqual({ ok: true });
  });

  it('reports the first limit exceeded in the order single, daily, weekly, monthly', () => {
    const limits = { single: 1000, daily: 1000, weekly: 1000, monthly: 1000 };
    expect(checkLimits(limits, 1001)).toEqual({ ok: false, limit: 'single' });
    expect(checkLimits(limits, 500, { day: 600, week: 600, month: 600 })).toEqual({ ok: false, limit: 'daily' });
    expect(checkLimits(limits, 500, { week: 600, month: 600 })).toEqual({ ok: false, limit: 'weekly' });
    expect(checkLimits(limits, 500, { month: 600 })).toEqual({ ok: false, limit: 'monthly' });
  });

  it('a limit of 0 refuses every billing; null means no limit', () => {
    expect(checkLimits({ daily: 0 }, 100)).toEqual({ ok: false, limit: 'daily' });
    expect(checkLimits({ daily: null, single: null }, 100)).toEqual({ ok: true });
  });

  it('throws on amounts that are not minor units', () => {
    expect(() => checkLimits({}, 1.5)).toThrow(RangeError);
    expect(() => checkLimits({}, -100)).toThrow(RangeError);
    expect(() => checkLimits({ daily: 10.5 }, 100)).toThrow(RangeError);
  });
});

describe('counter items', () => {
  it('month item holds the day counters; week item its own total', () => {
    expect(limitCounterKeys(DEC, keys)).toEqual({
      month: { pk: `LIM#${DEC}`, sk: 'M#2026-11' },
      week: { pk: `LIM#${DEC}`, sk: 'W#2026-W47' },
    });
    expect(dayAttribute('2026-11-07')).toBe('d07');
  });

  it('TTL: 40 days after the month ends, 14 days after the week ends (epoch seconds)', () => {
    expect(counterExpiresAt('month', '2026-11')).toBe(Date.parse('2026-11-30T23:00:00Z') / 1000 + MONTH_COUNTER_RETENTION_SECONDS);
    expect(counterExpiresAt('week', '2026-W47')).toBe(Date.parse('2026-11-22T23:00:00Z') / 1000 + WEEK_COUNTER_RETENTION_SECONDS);
  });
});

describe('limitConditions (the reservation update)', () => {
  it('all period limits set: one conditional update per counter item', () => {
    const r = limitConditions(DEC, { single: 500_000, daily: 100_000, weekly: 300_000, monthly: 1_000_000 }, 40_000, keys);
    expect(r).toEqual({
      ok: true,
      updates: {
        month: {
          Key: { pk: `LIM#${DEC}`, sk: 'M#2026-11' },
          UpdateExpression: 'ADD #total :amt, #day :amt SET #exp = :exp',
          ConditionExpression: '(attribute_not_exists(#total) OR #total <= :monthMax) AND (attribute_not_exists(#day) OR #day <= :dayMax)',
          ExpressionAttributeNames: { '#total': 'total', '#day': 'd22', '#exp': 'expiresAt' },
          ExpressionAttributeValues: {
            ':amt': 40_000,
            ':exp': counterExpiresAt('month', '2026-11'),
            ':monthMax': 960_000, // limit - amount: the counter may be at most this before adding
            ':dayMax': 60_000,
          },
        },
        week: {
          Key: { pk: `LIM#${DEC}`, sk: 'W#2026-W47' },
          UpdateExpression: 'ADD #total :amt SET #exp = :exp',
          ConditionExpression: '(attribute_not_exists(#total) OR #total <= :weekMax)',
          ExpressionAttributeNames: { '#total': 'total', '#exp': 'expiresAt' },
          ExpressionAttributeValues: { ':amt': 40_000, ':exp': counterExpiresAt('week', '2026-W47'), ':weekMax': 260_000 },
        },
      },
    });
  });

  it('no period limit: the counters still count (unconditionally), so a limit set later sees earlier billings', () => {
    const r = limitConditions(DEC, { single: 500_000 }, 40_000, keys);
    if (!r.ok) throw new Error('expected ok');
    expect(r.updates.month.ConditionExpression).toBeUndefined();
    expect(r.updates.week.ConditionExpression).toBeUndefined();
    expect(r.updates.month.UpdateExpression).toBe('ADD #total :amt, #day :amt SET #exp = :exp');
    expect(r.updates.month.ExpressionAttributeValues).toEqual({ ':amt': 40_000, ':exp': counterExpiresAt('month', '2026-11') });
  });

  it('only a daily limit: only the day condition, on the month item', () => {
    const r = limitConditions(DEC, { daily: 100_000 }, 100_000, keys);
    if (!r.ok) throw new Error('expected ok');
    expect(r.updates.month.ConditionExpression).toBe('(attribute_not_exists(#day) OR #day <= :dayMax)');
    expect(r.updates.month.ExpressionAttributeValues[':dayMax']).toBe(0); // exactly at the limit: only an empty day fits
    expect(r.updates.week.ConditionExpression).toBeUndefined();
  });

  it('every placeholder used is declared and every declared one is used (DynamoDB rejects both mistakes)', () => {
    const r = limitConditions(DEC, { daily: 1, weekly: 1, monthly: 1 }, 1, keys);
    if (!r.ok) throw new Error('expected ok');
    for (const u of [r.updates.month, r.updates.week]) {
      const text = `${u.UpdateExpression} ${u.ConditionExpression ?? ''}`;
      const names = new Set(text.match(/#\w+/g));
      const values = new Set(text.match(/:\w+/g));
      expect(new Set(Object.keys(u.ExpressionAttributeNames))).toEqual(names);
      expect(new Set(Object.keys(u.ExpressionAttributeValues))).toEqual(values);
    }
  });

  it('the amount alone over a limit is refused before any update (attribute_not_exists would let it through)', () => {
    expect(limitConditions(DEC, { single: 1000 }, 1001, keys)).toEqual({ ok: false, limit: 'single' });
    expect(limitConditions(DEC, { daily: 1000 }, 1001, keys)).toEqual({ ok: false, limit: 'daily' });
    expect(limitConditions(DEC, { weekly: 1000 }, 1001, keys)).toEqual({ ok: false, limit: 'weekly' });
    expect(limitConditions(DEC, { monthly: 1000 }, 1001, keys)).toEqual({ ok: false, limit: 'monthly' });
  });

  it('refuses period keys that do not belong to one day, and bad amounts', () => {
    expect(() => limitConditions(DEC, {}, 100, { ...keys, week: '2026-W48' })).toThrow(RangeError);
    expect(() => limitConditions(DEC, {}, 100, { ...keys, month: '2026-12' })).toThrow(RangeError);
    expect(() => limitConditions(DEC, {}, 100, { ...keys, day: '2026-11-31' })).toThrow(RangeError);
    expect(() => limitConditions(DEC, {}, 0.5, keys)).toThrow(RangeError);
    expect(() => limitConditions('', {}, 100, keys)).toThrow(RangeError);
  });

  it('Lagos midnight: a billing at 23:00Z on Nov 22 counts on Nov 23 (d23) and in the next ISO week', () => {
    const late = periodKeys(new Date('2026-11-22T23:00:00Z'));
    const r = limitConditions(DEC, { daily: 1000 }, 100, late);
    if (!r.ok) throw new Error('expected ok');
    expect(r.updates.month.ExpressionAttributeNames['#day']).toBe('d23');
    expect(r.updates.week.Key.sk).toBe('W#2026-W48');
  });

  it('a ISO week across the year end uses the week-year: Jan 1 2027 counts in W#2026-W53 and M#2027-01', () => {
    const r = limitConditions(DEC, {}, 100, periodKeys(new Date('2027-01-01T10:00:00Z')));
    if (!r.ok) throw new Error('expected ok');
    expect(r.updates.week.Key.sk).toBe('W#2026-W53');
    expect(r.updates.month.Key.sk).toBe('M#2027-01');
    expect(r.updates.month.ExpressionAttributeNames['#day']).toBe('d01');
  });
});

describe('limitRelease', () => {
  it('the same counters ADD the negative amount, without a condition', () => {
    const r = limitRelease(DEC, 40_000, keys);
    expect(r.month).toEqual({
      Key: { pk: `LIM#${DEC}`, sk: 'M#2026-11' },
      UpdateExpression: 'ADD #total :amt, #day :amt SET #exp = :exp',
      ExpressionAttributeNames: { '#total': 'total', '#day': 'd22', '#exp': 'expiresAt' },
      ExpressionAttributeValues: { ':amt': -40_000, ':exp': counterExpiresAt('month', '2026-11') },
    });
    expect(r.week).toEqual({
      Key: { pk: `LIM#${DEC}`, sk: 'W#2026-W47' },
      UpdateExpression: 'ADD #total :amt SET #exp = :exp',
      ExpressionAttributeNames: { '#total': 'total', '#exp': 'expiresAt' },
      ExpressionAttributeValues: { ':amt': -40_000, ':exp': counterExpiresAt('week', '2026-W47') },
    });
    expect('ConditionExpression' in r.month || 'ConditionExpression' in r.week).toBe(false);
  });

  it('releases the periods it was reserved under, not the current ones', () => {
    const reservedUnder = periodKeys(new Date('2026-11-22T22:59:00Z')); // Nov 22, 23:59 Lagos
    const r = limitRelease(DEC, 100, reservedUnder);
    expect(r.month.ExpressionAttributeNames['#day']).toBe('d22');
    expect(r.week.Key.sk).toBe('W#2026-W47');
  });
});

describe('usedFromCounters', () => {
  it('reads the day, week and month totals; missing items or attributes are 0', () => {
    expect(usedFromCounters(keys, { total: 900, d22: 300, d21: 600 }, { total: 1200 })).toEqual({ day: 300, week: 1200, month: 900 });
    expect(usedFromCounters(keys, undefined, undefined)).toEqual({ day: 0, week: 0, month: 0 });
    expect(usedFromCounters(keys, { total: 600, d21: 600 }, undefined)).toEqual({ day: 0, week: 0, month: 600 });
  });

  it('simulated concurrency: applying the conditions one at a time never passes the limit', () => {
    // A model of DynamoDB's per-item serialisation: each reservation's conditions are
    // evaluated against the counters left by the previous ones.
    const limits = { daily: 100_000, weekly: 250_000, monthly: 1_000_000 };
    const month: Record<string, number> = {};
    const week: Record<string, number> = {};
    let accepted = 0;
    for (let i = 0; i < 50; i++) {
      const amount = 7_000 + i * 13;
      const r = limitConditions(DEC, limits, amount, keys);
      if (!r.ok) continue;
      const m = r.updates.month;
      const dayAttr = m.ExpressionAttributeNames['#day']!;
      const okMonth = month.total === undefined || month.total <= m.ExpressionAttributeValues[':monthMax']!;
      const okDay = month[dayAttr] === undefined || month[dayAttr]! <= m.ExpressionAttributeValues[':dayMax']!;
      const okWeek = week.total === undefined || week.total <= r.updates.week.ExpressionAttributeValues[':weekMax']!;
      if (!(okMonth && okDay && okWeek)) {
        // what the billing feature does on a failed condition: say which limit
        const why = checkLimits(limits, amount, usedFromCounters(keys, month, week));
        expect(why).toEqual({ ok: false, limit: 'daily' });
        continue;
      }
      month.total = (month.total ?? 0) + amount;
      month[dayAttr] = (month[dayAttr] ?? 0) + amount;
      week.total = (week.total ?? 0) + amount;
      accepted++;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(month.d22).toBeLessThanOrEqual(100_000);
    expect(month.d22! + 7_000).toBeGreaterThan(100_000); // it filled up, it did not stop early
  });
});
