import { describe, expect, it } from 'vitest';
import {
  ANSWER_TIMEOUT_MS,
  MAX_RETRIES_PER_PERIOD,
  advance,
  afterFailure,
  answerDeadline,
  completionReason,
  firstDueAt,
  noticeAt,
  noticeDue,
  resumeCursor,
  type ScheduleDates,
} from '../../functions/recurring/policy';

const d = (iso: string) => new Date(iso);
const iso = (x: Date | undefined) => x?.toISOString();
const monthly = (anchor: string, over: Partial<ScheduleDates> = {}): ScheduleDates => ({ anchor: d(anchor), frequency: 'monthly', interval: 1, ...over });

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

describe('afterFailure: retry the next day, at most 3 times per period', () => {
  const s = monthly('2027-01-10T09:00:00Z');
  it('retries one day after the run', () => {
    expect(afterFailure(s, 0, 0, d('2027-01-10T09:00:00Z'))).toEqual({ occurrence: 0, attempt: 1, nextBillingDate: d('2027-01-11T09:00:00Z') });
    expect(afterFailure(s, 0, 2, d('2027-01-12T09:00:00Z'))).toEqual({ occurrence: 0, attempt: 3, nextBillingDate: d('2027-01-13T09:00:00Z') });
  });

  it(`after ${MAX_RETRIES_PER_PERIOD} retries: the next period`, () => {
    expect(afterFailure(s, 0, MAX_RETRIES_PER_PERIOD, d('2027-01-13T09:00:00Z'))).toEqual({ occurrence: 1, attempt: 0, nextBillingDate: d('2027-02-10T09:00:00Z') });
  });

  it('never retries into the next period: daily schedules just move on', () => {
    const daily: ScheduleDates = { anchor: d('2027-01-10T09:00:00Z'), frequency: 'daily', interval: 1 };
    expect(afterFailure(daily, 0, 0, d('2027-01-10T09:00:00Z'))).toEqual({ occurrence: 1, attempt: 0, nextBillingDate: d('2027-01-11T09:00:00Z') });
    const weekly: ScheduleDates = { anchor: d('2027-01-10T09:00:00Z'), frequency: 'weekly', interval: 1 };
    // A retry on day 6 is still before day 7.
    expect(afterFailure(weekly, 0, 0, d('2027-01-15T09:00:00Z')).attempt).toBe(1);
    expect(afterFailure(weekly, 0, 0, d('2027-01-16T09:00:00Z')).occurrence).toBe(1);
  });

  it('never retries past endDate', () => {
    const ending = monthly('2027-01-10T09:00:00Z', { endDate: d('2027-01-10T12:00:00Z') });
    const c = afterFailure(ending, 0, 0, d('2027-01-10T09:00:00Z'));
    expect(c.occurrence).toBe(1);
    expect(completionReason(ending, 0, c.nextBillingDate)).toBe('end_date');
  });
});

describe('resumeCursor: missed periods are skipped, never in the past, never re-billed', () => {
  const s = monthly('2027-01-31T09:00:00Z');
  it('the first occurrence strictly after now', () => {
    expect(resumeCursor(s, 0, d('2027-04-15T00:00:00Z'))).toEqual({ occurrence: 3, attempt: 0, nextBillingDate: d('2027-04-30T09:00:00Z') });
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
