/**
 * Test clocks' writes (sandbox only, DESIGN 8.7): create, start an advance, the advance's
 * progress and end (only while its claim holds), delete. The item and its reads are in
 * platform/test-clock-item.ts; the advance itself is sandbox/test-clocks.ts.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../domain/ids';
import { db } from '../platform/clients';
import { realDueAttributes } from '../platform/due';
import { isConditionFailure, realNowIso, table } from '../platform/table';
import { isClockIdShaped, testClockKey, type TestClockItem } from '../platform/test-clock-item';

export { getTestClock, type TestClockItem } from '../platform/test-clock-item';

export const TEST_CLOCK_KIND = 'sandbox.test_clock';
/** The farthest one advance may move a clock. */
export const MAX_ADVANCE_YEARS = 2;

/** The API shape. */
export const testClockView = (c: TestClockItem) => ({
  clockId: c.clockId,
  name: c.name,
  frozenTime: c.frozenTime,
  status: c.status,
  ...(c.targetTime ? { targetTime: c.targetTime } : {}),
  createdAt: c.createdAt,
});

export async function createTestClock(merchantId: string, frozenTime: string, name: string | null): Promise<TestClockItem> {
  const clockId = newId('clk');
  const now = realNowIso();
  const item: TestClockItem = {
    ...testClockKey(clockId),
    type: 'test_clock',
    clockId,
    merchantId,
    name,
    frozenTime,
    status: 'ready',
    createdAt: now,
    updatedAt: now,
  };
  await db().send(new PutCommand({ TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  return item;
}

/** The latest time one advance may reach from `from`. */
export function advanceLimit(from: Date): Date {
  const d = new Date(from);
  d.setUTCFullYear(d.getUTCFullYear() + MAX_ADVANCE_YEARS);
  return d;
}

/**
 * Start advancing the clock `c` (as the caller read it) to `target` (validated by the caller):
 * `advancing`, the clock due now on the real index. Undefined when it is (or just became)
 * advancing already.
 */
export async function startAdvance(c: TestClockItem, target: string): Promise<TestClockItem | undefined> {
  if (c.status === 'advancing') return undefined;
  const now = realNowIso();
  const due = realDueAttributes(TEST_CLOCK_KIND, c.clockId, now);
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: testClockKey(c.clockId),
        UpdateExpression: 'SET #s = :adv, targetTime = :t, updatedAt = :now, duePk = :dpk, dueSk = :dsk',
        ConditionExpression: '#s = :ready AND frozenTime = :f',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':adv': 'advancing',
          ':ready': 'ready',
          ':t': target,
          ':now': now,
          ':dpk': due.duePk,
          ':dsk': due.dueSk,
          ':f': c.frozenTime,
        },
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
  return { ...c, status: 'advancing', targetTime: target, updatedAt: now };
}

/** Delete the merchant's clock `id` in one conditional write; false for unknown, malformed or another merchant's. */
export async function deleteTestClock(merchantId: string, id: string): Promise<boolean> {
  if (!isClockIdShaped(id)) return false;
  try {
    await db().send(
      new DeleteCommand({
        TableName: table(),
        Key: testClockKey(id),
        ConditionExpression: '#t = :type AND merchantId = :m',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':type': 'test_clock', ':m': merchantId },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** The clock's item, updated only while the advance's claim (`leasedSk`) holds. */
export async function updateWhileOurs(id: string, leasedSk: string, expr: string, values: Record<string, unknown>): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: testClockKey(id),
        UpdateExpression: expr,
        ConditionExpression: 'dueSk = :leased',
        ...(expr.includes('#s') ? { ExpressionAttributeNames: { '#s': 'status' } } : {}),
        ExpressionAttributeValues: { ...values, ':leased': leasedSk },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}
