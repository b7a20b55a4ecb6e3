import { describe, expect, it } from 'vitest';
import { config } from '../../functions/config';
import { RUNTIME_DEFAULTS } from '../../lib/settings';
import { MAX_DELAY_SECONDS, backoffSeconds, nominalSchedule, parseRetryAfter, retryDelaySeconds } from '../../functions/webhooks/backoff';

describe('webhook backoff', () => {
  it('doubles from the base, capped at 12 h (SQS maximum visibility)', () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffSeconds(n, 60, mid))).toEqual([60, 120, 240, 480, 960, 1920, 3840]);
    expect(backoffSeconds(10, 60, mid)).toBe(30_720);
    expect(backoffSeconds(11, 60, mid)).toBe(MAX_DELAY_SECONDS);
    expect(backoffSeconds(40, 60, mid)).toBe(MAX_DELAY_SECONDS);
    expect(backoffSeconds(1, 1, mid)).toBe(1);
  });

  it('applies +/-20 % jitter, never below 1 s nor above the cap', () => {
    expect(backoffSeconds(3, 60, () => 0)).toBe(192); // 240 * 0.8
    expect(backoffSeconds(3, 60, () => 0.999999)).toBe(288); // 240 * 1.2
    expect(backoffSeconds(1, 0.1, () => 0)).toBe(1);
    expect(backoffSeconds(20, 60, () => 0.999999)).toBe(MAX_DELAY_SECONDS);
    expect(backoffSeconds(20, 60, () => 0)).toBe(34_560); // cap * 0.8
    for (let i = 0; i < 1000; i++) {
      const d = backoffSeconds(4, 60);
      expect(d).toBeGreaterThanOrEqual(384);
      expect(d).toBeLessThanOrEqual(576);
    }
  });

  it('spreads retries: jittered delays of one attempt differ', () => {
    const seen = new Set(Array.from({ length: 200 }, () => backoffSeconds(5, 60)));
    expect(seen.size).toBeGreaterThan(50);
  });

  it("the code defaults meet DESIGN 6.6 (at least 8 attempts over at least 24 h) and are the deployed stacks' (RUNTIME_DEFAULTS)", () => {
    const attempts = config.webhookMaxAttempts();
    const base = config.webhookBackoffBaseSeconds();
    expect(attempts).toBeGreaterThanOrEqual(8);
    expect(nominalSchedule(attempts, base).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(86_400);
    // Even with every wait at the low end of its jitter (12 attempts: 23.2 h).
    const lowest = Array.from({ length: attempts - 1 }, (_, i) => backoffSeconds(i + 1, base, () => 0));
    expect(lowest.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(86_400);
    expect(RUNTIME_DEFAULTS).toMatchObject({ WEBHOOK_MAX_ATTEMPTS: String(attempts), WEBHOOK_BACKOFF_BASE_SECONDS: String(base) });
  });

  it("6.8's schedule (8 attempts, base 60 s) spans about 2.1 h; 13 attempts pass 24 h", () => {
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(nominalSchedule(8, 60)).toEqual([60, 120, 240, 480, 960, 1920, 3840]);
    expect(sum(nominalSchedule(8, 60))).toBe(7620);
    expect(sum(nominalSchedule(13, 60))).toBeGreaterThan(86_400);
    expect(nominalSchedule(1, 60)).toEqual([]);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-02T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
    expect(parseRetryAfter('Mon, 02 Nov 2026 10:05:00 GMT', now)).toBe(300);
    expect(parseRetryAfter('Mon, 02 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('honours Retry-After on 429/503 only when longer than the backoff, capped at 12 h', () => {
    const base = { baseSeconds: 60, nowMs: 0, random: () => 0.5 };
    expect(retryDelaySeconds({ ...base, attempt: 1, statusCode: 429, retryAfter: '600' })).toBe(600);
    expect(retryDelaySeconds({ ...base, attempt: 1, statusCode: 503, retryAfter: '600' })).toBe(600);
    expect(retryDelaySeconds({ ...base, attempt: 1, statusCode: 429, retryAfter: '5' })).toBe(60);
    expect(retryDelaySeconds({ ...base, attempt: 1, statusCode: 500, retryAfter: '600' })).toBe(60);
    expect(retryDelaySeconds({ ...base, attempt: 1, statusCode: 429, retryAfter: '999999' })).toBe(MAX_DELAY_SECONDS);
    expect(retryDelaySeconds({ ...base, attempt: 2 })).toBe(120);
  });
});
