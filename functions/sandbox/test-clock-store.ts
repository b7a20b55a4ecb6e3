/**
 * Test clocks' writes (sandbox only, DESIGN 8.7): create, start an advance, the advance's
 * progress and end (only while its claim holds), delete. The item and its reads are in
 * platform/test-clock-item.ts; the advance itself is sandbox/test-clocks.ts.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../domain/ids';
import { db } from '../platform/clients';
import { realDueAttributes } from '../platform/due';
import { getItem, isConditionFailure, realNowIso, table } from '../platform/table';
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

/**
 * The first step of a DELETE (DESIGN 9.2): the merchant's clock `id` becomes `deleting` (to
 * every reader it is gone: GET, advance and `X-Test-Clock` are 404, a bank's answer no longer
 * runs at its time) and leaves the real due index, so no further step of an advance starts,
 * and the step running now stops before its next batch (its progress writes are conditioned
 * on `advancing` and its lease). The clock as it was (a clock already `deleting`: a DELETE
 * retried after a failure finishes the cleanup), or undefined for unknown, malformed or
 * another merchant's.
 */
export async function markDeleting(merchantId: string, id: string): Promise<TestClockItem | undefined> {
  if (!isClockIdShaped(id)) return undefined;
  const now = realNowIso();
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: testClockKey(id),
        UpdateExpression: 'SET #s = :deleting, deletedAt = if_not_exists(deletedAt, :now), updatedAt = :now REMOVE duePk, dueSk',
        ConditionExpression: '#t = :type AND merchantId = :m',
        ExpressionAttributeNames: { '#t': 'type', '#s': 'status' },
        ExpressionAttributeValues: { ':type': 'test_clock', ':m': merchantId, ':deleting': 'deleting', ':now': now },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes as TestClockItem | undefined;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

/** The last step of a DELETE: the `deleting` clock's item goes (a concurrent DELETE may have removed it already). */
export async function removeDeletedClock(id: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: table(),
        Key: testClockKey(id),
        ConditionExpression: '#s = :deleting',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':deleting': 'deleting' },
      }),
    );
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

/**
 * One batch of an advance is about to run at `atIso`: the clock's time moves there (GET shows
 * it, and a bank answering one of its billings meanwhile answers at that time), only while the
 * clock is still advancing under this step's claim. False when it is not (deleted, or another
 * step took over): the step stops.
 */
export async function moveWhileOurs(id: string, leasedSk: string, atIso: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: testClockKey(id),
        UpdateExpression: 'SET frozenTime = :t, updatedAt = :now',
        ConditionExpression: '#s = :adv AND dueSk = :leased',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':t': atIso, ':now': realNowIso(), ':adv': 'advancing', ':leased': leasedSk },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/** The clock is still advancing under this step's claim (read, no write). */
export async function stillOurs(id: string, leasedSk: string): Promise<boolean> {
  const c = await getItem<TestClockItem>(testClockKey(id));
  return c?.status === 'advancing' && c.dueSk === leasedSk;
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
