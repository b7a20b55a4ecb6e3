/**
 * Retry timing of webhook deliveries (DESIGN 6.6, 6.8, 9.6). Pure.
 *
 * After failed attempt n (1-based) the next attempt waits
 * `WEBHOOK_BACKOFF_BASE_SECONDS * 2^(n-1)`, capped at 12 h, with +/-20 % jitter (so
 * receivers that fail together do not retry together), and at least 1 s. A `Retry-After` on
 * 429/503 wins when it asks for longer (also capped at 12 h).
 *
 * How a wait is carried (DESIGN 9.6): up to `maxQueueDelaySeconds()` (SQS's limit, 15
 * minutes) by a new message sent with that `DelaySeconds`; longer, by the delivery's due
 * entry, which sends the message when the tick reaches it. Never by a message held in flight.
 */
import { backoffDelay } from '../platform/retry';

export const MAX_DELAY_SECONDS = 43_200;
export const JITTER = 0.2;

/** The longest `DelaySeconds` SQS takes. */
export const SQS_MAX_DELAY_SECONDS = 900;

/**
 * Waits up to this long ride a delayed message; longer ones go through the due index.
 * `WEBHOOK_MAX_QUEUE_DELAY_SECONDS` lowers it (tests take the due index's path in seconds).
 */
export function maxQueueDelaySeconds(): number {
  const v = process.env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS;
  const raw = v === undefined || v === '' ? Number.NaN : Number(v);
  return Number.isFinite(raw) && raw >= 0 ? Math.min(SQS_MAX_DELAY_SECONDS, Math.floor(raw)) : SQS_MAX_DELAY_SECONDS;
}

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
