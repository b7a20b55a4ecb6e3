import { describe, expect, it } from 'vitest';
import {
  ANSWER_TIMEOUT_MS,
  DEFAULT_RETRY_AFTER_DAYS,
  advance,
  afterFailure,
  answerDeadline,
  completionReason,
  firstDueAt,
  noticeAt,
  noticeDue,
  nextRetryAt,
  resumeCursor,
  retryDate,
  type ScheduleDates,
} from '../../functions/recurring/policy';

const d = (iso: string) => new Date(iso);
const iso = (x: Date | undefined) => x?.toISOString();
const monthly = (anchor: string, over: Partial<ScheduleDates> = {}): ScheduleDates => ({
  anchor: d(anchor),
  frequency: 'monthly',
  interval: 1,
  ...over,
});

describe('advance: the next period after a run', () => {
  it('on time: k + 1, from the anchor (month ends clamp and come back)', () => {
    const s = monthly('2027-01-31T09:00:00Z');
    expect(iso(advance(s, 0, d('2027-01-31T09:00:00Z')).nextBillingDate)).toBe('2027-02-28T09:00:00.000Z');
    expect(iso(advance(s, 1, d('2027-02-28T09:00:00Z')).nextBillingDate)).toBe('2027-03-31T09:00:00.000Z');
    expect(advance(s, 1, d('2027-02-28T09:00:00Z'))).toMatchObject({ occurrence: 2, attempt: 0 });
  });

  it('a late run skips the periods whose dates already passed (no back-to-back catch-up)', () => {
    const s = monthly('2027-01-15T09:00:00Z');
    // Period 0 ran on May 20: Feb..May 15 are gone; next is Jun 15 (occurrence 5).
    expect(advance(s, 0, d('2027-05-20T00:00:00Z'))).toMatchObject({ occurrence: 5, nextBillingDate: d('2027-06-15T09:00:00Z') });
  });

  it('a run exactly at the next date skips it (strictly after the run)', () => {
    const s: ScheduleDates = { anchor: d('2027-01-01T00:00:00Z'), frequency: 'daily', interval: 1 };
    expect(advance(s, 0, d('2027-01-02T00:00:00Z')).occurrence).toBe(2);
  });

  it('interval and leap days', () => {
    const s: ScheduleDates = { anchor: d('2028-02-29T12:00:00Z'), frequency: 'yearly', interval: 1 };
    expect(iso(advance(s, 0, d('2028-02-29T12:00:00Z')).nextBillingDate)).toBe('2029-02-28T12:00:00.000Z');
    expect(iso(advance(s, 3, d('2031-02-28T12:00:00Z')).nextBillingDate)).toBe('2032-02-29T12:00:00.000Z');
    const w: ScheduleDates = { anchor: d('2027-03-01T08:00:00Z'), frequency: 'weekly', interval: 2 };
    expect(iso(advance(w, 0, d('2027-03-01T08:00:00Z')).nextBillingDate)).toBe('2027-03-15T08:00:00.000Z');
  });

  it('no date before year 9999: undefined (completes)', () => {
    const s: ScheduleDates = { anchor: d('9998-06-01T00:00:00Z'), frequency: 'yearly', interval: 366 };
    expect(advance(s, 0, d('9998-06-01T00:00:00Z')).nextBillingDate).toBeUndefined();
  });
});

describe('the retry policy (DESIGN 8.6): nextRetryAt and afterFailure', () => {
  const s = monthly('2027-01-10T09:00:00Z');
  const retry = (k: number, attempt: number, ranAt: string, policy?: number[], dates = s) =>
    iso(nextRetryAt(dates, k, attempt, d(ranAt), policy) ?? undefined) ?? null;

  it('the default [1, 1, 1]: one day after each attempt, three retries, then the next period', () => {
    expect(DEFAULT_RETRY_AFTER_DAYS).toEqual([1, 1, 1]);
    expect(retry(0, 0, '2027-01-11T09:00:00Z')).toBe('2027-01-12T09:00:00.000Z');
    expect(retry(0, 2, '2027-01-13T09:00:00Z')).toBe('2027-01-14T09:00:00.000Z');
    expect(retry(0, 3, '2027-01-14T09:00:00Z')).toBeNull();
    expect(afterFailure(s, 0, 3, d('2027-01-14T09:00:00Z'), null)).toEqual({
      occurrence: 1,
      attempt: 0,
      nextBillingDate: d('2027-02-10T09:00:00Z'),
    });
    expect(afterFailure(s, 0, 0, d('2027-01-11T09:00:00Z'), d('2027-01-12T09:00:00Z'))).toEqual({
      occurrence: 0,
      attempt: 1,
      nextBillingDate: d('2027-01-12T09:00:00Z'),
    });
  });

  it("a merchant's policy: retry i is retryAfterDays[i] days after the attempt before it; the last attempt has none", () => {
    const policy = [2, 5, 7];
    expect(retry(0, 0, '2027-01-11T09:00:00Z', policy)).toBe('2027-01-13T09:00:00.000Z');
    expect(retry(0, 1, '2027-01-13T09:00:00Z', policy)).toBe('2027-01-18T09:00:00.000Z');
    expect(retry(0, 2, '2027-01-18T09:00:00Z', policy)).toBe('2027-01-25T09:00:00.000Z');
    expect(retry(0, 3, '2027-01-25T09:00:00Z', policy)).toBeNull();
    expect(retry(0, 0, '2027-01-11T09:00:00Z', [3])).toBe('2027-01-14T09:00:00.000Z');
    expect(retry(0, 1, '2027-01-14T09:00:00Z', [3])).toBeNull();
  });

  it('a retry on a weekend or a holiday moves to the next Lagos business day, same time of day', () => {
    // Fri 2027-01-15 + 1 = Sat -> Mon 18.
    expect(retry(0, 0, '2027-01-15T09:00:00Z')).toBe('2027-01-18T09:00:00.000Z');
    // Fri 2029-09-28 + 1 = Sat 29, Sun 30, Mon Oct 1 (Independence Day) -> Tue Oct 2.
    const sep = monthly('2029-09-28T08:00:00Z');
    expect(retry(0, 0, '2029-09-28T08:00:00Z', undefined, sep)).toBe('2029-10-02T08:00:00.000Z');
    // 23:30 Lagos on Friday is 22:30Z; + 1 day is Saturday in Lagos (the Lagos date decides).
    expect(iso(retryDate(d('2027-01-15T22:30:00Z'), 1))).toBe('2027-01-18T22:30:00.000Z');
    // Sunday 00:30 Lagos (Saturday 23:30Z) + 1 day = Monday 00:30 Lagos: a business day, kept.
    expect(iso(retryDate(d('2027-01-16T23:30:00Z'), 1))).toBe('2027-01-17T23:30:00.000Z');
  });

  it('never retries into the next period: daily schedules just move on', () => {
    const daily: ScheduleDates = { anchor: d('2027-01-11T09:00:00Z'), frequency: 'daily', interval: 1 };
    expect(retry(0, 0, '2027-01-11T09:00:00Z', undefined, daily)).toBeNull();
    const weekly: ScheduleDates = { anchor: d('2027-01-10T09:00:00Z'), frequency: 'weekly', interval: 1 };
    // Thu 14 + 1 = Fri 15, before the next period (Sun 17).
    expect(retry(0, 0, '2027-01-14T09:00:00Z', undefined, weekly)).toBe('2027-01-15T09:00:00.000Z');
    // Fri 15 + 1 = Sat -> Mon 18: past the next period, so none.
    expect(retry(0, 0, '2027-01-15T09:00:00Z', undefined, weekly)).toBeNull();
  });

  it('never retries past endDate', () => {
    const ending = monthly('2027-01-11T09:00:00Z', { endDate: d('2027-01-11T12:00:00Z') });
    expect(retry(0, 0, '2027-01-11T09:00:00Z', undefined, ending)).toBeNull();
    const c = afterFailure(ending, 0, 0, d('2027-01-11T09:00:00Z'), null);
    expect(c.occurrence).toBe(1);
    expect(completionReason(ending, 0, c.nextBillingDate)).toBe('end_date');
  });
});

describe('resumeCursor: missed periods are skipped, never in the past, never re-billed', () => {
  const s = monthly('2027-01-31T09:00:00Z');
  it('the first occurrence strictly after now', () => {
    expect(resumeCursor(s, 0, d('2027-04-15T00:00:00Z'))).toEqual({
      occurrence: 3,
      attempt: 0,
      nextBillingDate: d('2027-04-30T09:00:00Z'),
    });
  });
  it('not before the cursor (periods already handled)', () => {
    expect(resumeCursor(s, 5, d('2027-01-01T00:00:00Z'))).toMatchObject({ occurrence: 5, nextBillingDate: d('2027-06-30T09:00:00Z') });
  });
  it('before the anchor: the anchor', () => {
    expect(resumeCursor(s, 0, d('2026-12-01T00:00:00Z')).nextBillingDate).toEqual(d('2027-01-31T09:00:00Z'));
  });
  it('exactly at an occurrence: the one after (strictly after now)', () => {
    expect(resumeCursor(s, 0, d('2027-02-28T09:00:00Z')).occurrence).toBe(2);
  });
});

describe('completionReason', () => {
  it('maxBillings counts successes', () => {
    const s = monthly('2027-01-01T00:00:00Z', { maxBillings: 3 });
    expect(completionReason(s, 2, d('2027-03-01T00:00:00Z'))).toBeUndefined();
    expect(completionReason(s, 3, d('2027-04-01T00:00:00Z'))).toBe('max_billings');
  });
  it('endDate is inclusive', () => {
    const s = monthly('2027-01-01T00:00:00Z', { endDate: d('2027-03-01T00:00:00Z') });
    expect(completionReason(s, 0, d('2027-03-01T00:00:00Z'))).toBeUndefined();
    expect(completionReason(s, 0, d('2027-03-01T00:00:00.001Z'))).toBe('end_date');
  });
  it('no next date: complete', () => {
    expect(completionReason(monthly('2027-01-01T00:00:00Z'), 0, undefined)).toBe('end_date');
  });
});

it('answer deadline: one day after the run', () => {
  expect(answerDeadline(d('2027-01-01T00:00:00Z')).getTime() - d('2027-01-01T00:00:00Z').getTime()).toBe(ANSWER_TIMEOUT_MS);
  expect(ANSWER_TIMEOUT_MS).toBe(86_400_000);
});

describe('pre-debit notice (DESIGN 8.5): when a run is first due on the index', () => {
  const runAt = d('2027-03-01T09:00:00Z');
  const DAY = 86_400_000;
  it('noticeAt: runAt minus the notice; a notice of 0 is runAt itself', () => {
    expect(iso(noticeAt(runAt, DAY))).toBe('2027-02-28T09:00:00.000Z');
    expect(iso(noticeAt(runAt, 1000))).toBe('2027-03-01T08:59:59.000Z');
    expect(iso(noticeAt(runAt, 0))).toBe('2027-03-01T09:00:00.000Z');
  });
  it('noticeDue: owed once per period, never when the notice is off', () => {
    expect(noticeDue(DAY, 0, undefined)).toBe(true);
    expect(noticeDue(DAY, 0, 0)).toBe(false);
    expect(noticeDue(DAY, 1, 0)).toBe(true);
    expect(noticeDue(0, 1, 0)).toBe(false);
    expect(noticeDue(0, 0, undefined)).toBe(false);
  });
  it('firstDueAt: the notice time while the period is unannounced, else the run itself', () => {
    expect(iso(firstDueAt(runAt, DAY, 2, 1))).toBe('2027-02-28T09:00:00.000Z');
    expect(iso(firstDueAt(runAt, DAY, 2, 2))).toBe('2027-03-01T09:00:00.000Z');
    expect(iso(firstDueAt(runAt, 0, 2, undefined))).toBe('2027-03-01T09:00:00.000Z');
  });
});
