/** Small numeric helpers shared by the benchmarks (no dependency). */

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export const pct = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : 0;

/** Percentile of an unsorted array (sorts a copy). */
export const percentile = (xs: readonly number[], p: number): number =>
  pct(
    [...xs].sort((a, b) => a - b),
    p,
  );

export const median = (xs: readonly number[]): number => percentile(xs, 50);

export const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(latencies: readonly number[], d = 1): LatencySummary {
  const s = [...latencies].sort((a, b) => a - b);
  const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : 0;
  return {
    count: s.length,
    p50: round(pct(s, 50), d),
    p90: round(pct(s, 90), d),
    p99: round(pct(s, 99), d),
    max: round(s[s.length - 1] ?? 0, d),
    mean: round(mean, d),
  };
}

/** Run `fn` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Add `n` to `rec[key]`. */
export function bump(rec: Record<string, number>, key: string, n = 1): void {
  rec[key] = (rec[key] ?? 0) + n;
}
