/**
 * A sandbox test clock's item and its reads (DESIGN 8.7; sandbox/test-clock-store.ts writes it,
 * sandbox/test-clocks.ts advances it). Here, beside platform/clock.ts, because the HTTP
 * pipeline resolves `X-Test-Clock` (http/endpoint.ts) and a bank's answer to a clocked billing
 * runs at the clock's time: small on purpose, every API handler bundles it.
 */
import { frozenAt, type ClockContext } from './clock';
import { getItem } from './table';

/** `deleting`: a DELETE has begun (DESIGN 9.2); to every reader the clock is gone. */
export type TestClockStatus = 'ready' | 'advancing' | 'deleting';

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
  deletedAt?: string;
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

const isLive = (c: TestClockItem | undefined): c is TestClockItem => c?.type === 'test_clock' && c.status !== 'deleting';

/** The context of clock `id` at its time now (a bank answering a billing made on it), unless it is deleted. */
export async function clockContextOf(id: string): Promise<ClockContext | undefined> {
  const c = await getItem<TestClockItem>(testClockKey(id));
  return isLive(c) ? contextOf(c) : undefined;
}

/** The merchant's clock `id` (undefined for unknown, malformed, deleted or another merchant's). */
export async function getTestClock(merchantId: string, id: string): Promise<TestClockItem | undefined> {
  if (!isClockIdShaped(id)) return undefined;
  const c = await getItem<TestClockItem>(testClockKey(id));
  return isLive(c) && c.merchantId === merchantId ? c : undefined;
}

/**
 * The reason a deleted clock's objects end with (DESIGN 9.2): its schedules' `schedule.cancelled`
 * and the `billing.response` (status failed) of its billings still awaiting a bank.
 */
export const TEST_CLOCK_DELETED = 'test_clock_deleted';
