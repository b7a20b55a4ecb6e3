/**
 * A sandbox test clock's item and its reads (DESIGN 8.7; sandbox/test-clock-store.ts writes it,
 * sandbox/test-clocks.ts advances it). Here, beside platform/clock.ts, because the HTTP
 * pipeline resolves `X-Test-Clock` (http/endpoint.ts) and a bank's answer to a clocked billing
 * runs at the clock's time: small on purpose, every API handler bundles it.
 */
import { frozenAt, type ClockContext } from './clock';
import { getItem } from './table';

export type TestClockStatus = 'ready' | 'advancing';

export interface TestClockItem {
  pk: string;
  sk: 'TCLOCK';
  type: 'test_clock';
  clockId: string;
  merchantId: string;
  name: string | null;
  frozenTime: string;
  status: TestClockStatus;
  targetTime?: string;
  createdAt: string;
  updatedAt: string;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export const testClockKey = (id: string) => ({ pk: `TCLOCK#${id}`, sk: 'TCLOCK' as const });
export const isClockIdShaped = (id: string) => /^clk_[0-9A-Za-z]{8,60}$/.test(id);

/** The context of a clock: its time, standing still at `frozenTime`. */
export const contextOf = (c: TestClockItem): ClockContext => frozenAt(c.clockId, Date.parse(c.frozenTime));

/** The context of clock `id` at its time now (a bank answering a billing made on it), if it still exists. */
export async function clockContextOf(id: string): Promise<ClockContext | undefined> {
  const c = await getItem<TestClockItem>(testClockKey(id));
  return c && c.type === 'test_clock' ? contextOf(c) : undefined;
}

/** The merchant's clock `id` (undefined for unknown, malformed or another merchant's). */
export async function getTestClock(merchantId: string, id: string): Promise<TestClockItem | undefined> {
  if (!isClockIdShaped(id)) return undefined;
  const c = await getItem<TestClockItem>(testClockKey(id));
  return c && c.type === 'test_clock' && c.merchantId === merchantId ? c : undefined;
}
