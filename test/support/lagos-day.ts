/**
 * Setup file of the projects that run flows against the local stack. Spending limits,
 * settlement dates and pair counters are per Lagos day (DESIGN 5): a test whose calls
 * straddle Lagos midnight (23:00 UTC) would see two days' counters. Before each test,
 * wait out the last seconds of the Lagos day so that no short test straddles it. Costs
 * nothing except in the 30 s before 23:00 UTC.
 */
import { beforeEach } from 'vitest';
import { DAY_MS, LAGOS_OFFSET_MS } from '../../functions/domain/lagos-time';
import { sleep } from '../../functions/platform/retry';

export const DAY_EDGE_MARGIN_MS = 30_000;

/** Milliseconds until the next Lagos midnight. */
export function msToLagosMidnight(now = Date.now()): number {
  return DAY_MS - ((now + LAGOS_OFFSET_MS) % DAY_MS);
}

beforeEach(async () => {
  const left = msToLagosMidnight();
  if (left <= DAY_EDGE_MARGIN_MS) await sleep(left + 1_000);
});
