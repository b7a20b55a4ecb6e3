import { metric } from './metrics';
/**
 * Waiting and bounded concurrency: THE backoff formula of the code base, `sleep` and
 * `mapLimit`. Every retry loop (contention on a conditional write, a read that waits for an
 * index to catch up, webhook delivery retries) takes its delay from `backoffDelay`.
 */

export interface Backoff {
  /** Delay after the first failed attempt (any unit; the result is in the same unit). */
  base: number;
  /** Largest nominal delay. */
  cap: number;
  /**
   * Spread around the nominal delay: the result is uniform in [1 - jitter, 1 + jitter] times
   * it, so callers that fail together do not retry together. 0.5 unless told; 0 = none;
   * 1 = "full jitter" (0 to twice the nominal delay).
   */
  jitter?: number;
}

/** Delay after failed attempt `attempt` (1-based): min(cap, base * 2^(attempt-1)), jittered. */
export function backoffDelay(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  const nominal = Math.min(b.cap, b.base * 2 ** (n - 1));
  const jitter = b.jitter ?? 0.5;
  return nominal * (1 - jitter + 2 * jitter * random());
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sleep for `backoffDelay(attempt, b)` milliseconds. */
export const backoff = (attempt: number, b: Backoff): Promise<void> => sleep(backoffDelay(attempt, b));

/** `backoff` before retrying a write that lost a transaction conflict (counted as `ConflictRetries`). */
export const conflictBackoff = (attempt: number, b: Backoff): Promise<void> => {
  metric('ConflictRetries');
  return backoff(attempt, b);
};

/** Runs fn over items with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
