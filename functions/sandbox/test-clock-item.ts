/**
 * A test clock's item and its read (sandbox/test-clocks.ts has the rest): small on purpose,
 * since every API handler reads a clock when a request carries `X-Test-Clock` (http/endpoint.ts).
 */
import { frozenAt, type ClockContext } from '../platform/clock';
import { getItem } from '../platform/table';

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
const isClockIdShaped = (id: string) => /^clk_[0-9A-Za-z]{8,60}$/.test(id);

/** The context of clock `id` at its time now (a bank answering a billing made on it), if it still exists. */
export async function clockContextOf(id: string): Promise<ClockContext | undefined> {
  const c = await getItem<TestClockItem>(testClockKey(id));
  return c && c.type === 'test_clock' ? frozenAt(c.clockId, Date.parse(c.frozenTime)) : undefined;
}

/** The merchant's clock `id` (undefined for unknown, malformed or another merchant's). */
export async function getTestClock(merchantId: string, id: string): Promise<TestClockItem | undefined> {
  if (!isClockIdShaped(id)) return undefined;
  const c = await getItem<TestClockItem>(testClockKey(id));
  return c && c.type === 'test_clock' && c.merchantId === merchantId ? c : undefined;
}

