/**
 * Retry timing of webhook deliveries (DESIGN 6.6, 6.8). Pure.
 *
 * After failed attempt n (1-based) the next attempt waits
 * `WEBHOOK_BACKOFF_BASE_SECONDS * 2^(n-1)`, capped at SQS's maximum visibility timeout
 * (12 h), with +/-20 % jitter (so receivers that fail together do not retry together), and
 * at least 1 s. A `Retry-After` on 429/503 wins when it asks for longer (also capped at 12 h).
 */
import { backoffDelay } from '../platform/retry';

export const MAX_DELAY_SECONDS = 43_200;
export const JITTER = 0.2;

export function backoffSeconds(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const jittered = backoffDelay(attempt, { base: baseSeconds, cap: MAX_DELAY_SECONDS, jitter: JITTER }, random);
  return Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.round(jittered)));
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  if (!/^[A-Za-z]{3}/.test(v)) return undefined; // every HTTP-date form starts with the day name
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Delay before the attempt after failed attempt `attempt`. */
export function retryDelaySeconds(opts: {
  attempt: number;
  baseSeconds: number;
  statusCode?: number;
  retryAfter?: string | null;
  nowMs: number;
  random?: () => number;
}): number {
  const backoff = backoffSeconds(opts.attempt, opts.baseSeconds, opts.random);
  if (opts.statusCode !== 429 && opts.statusCode !== 503) return backoff;
  const asked = parseRetryAfter(opts.retryAfter, opts.nowMs);
  if (asked === undefined || asked <= backoff) return backoff;
  return Math.min(MAX_DELAY_SECONDS, asked);
}

/** The schedule with no jitter (docs and unit tests): delays after attempts 1..maxAttempts-1. */
export function nominalSchedule(maxAttempts: number, baseSeconds: number): number[] {
  return Array.from({ length: Math.max(0, maxAttempts - 1) }, (_, i) => backoffSeconds(i + 1, baseSeconds, () => 0.5));
}
