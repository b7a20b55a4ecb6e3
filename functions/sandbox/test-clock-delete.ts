/**
 * Deleting a test clock (DESIGN 9.2): after the 200, nothing created under the clock bills,
 * notifies or settles again, also when the clock was advancing.
 *
 *  1. The clock becomes `deleting` (sandbox/test-clock-store.ts `markDeleting`): gone for every
 *     reader, off the real due index, and the advance's step running now stops before its next
 *     batch (each batch first moves the clock's time, conditioned on `advancing` and its lease).
 *  2. In the clock's context (its time; what happens carries `testClock`):
 *     - its schedules end as `cancelled` (`schedule.cancelled`, actor `system`, reason
 *       `test_clock_deleted`); a run still at the bank fails (`billing.response` status
 *       failed, reason `test_clock_deleted`: its reservation released, `failedAttempts` + 1,
 *       `totalBillings` unchanged);
 *     - its partition of the due index is emptied: billings awaiting an answer there
 *       (an approval's expiry, a simulated bank's answer) fail the same way, and every entry
 *       leaves the index, conditioned on the entry as read. An entry claimed by the stopped
 *       step's last batch is its lease: taking it off makes that job's lease-conditioned write
 *       fail, so a job in flight cannot commit after this. Read again until empty (what a job
 *       committed meanwhile, or this cleanup's own outcomes, is taken too).
 *  3. The item goes.
 *
 * A DELETE that fails half way leaves the clock `deleting`; the retry does the rest. A real
 * bank answering a deleted clock's billing later is refused and the billing fails
 * (billing/bank-answer.ts), so no money moves on a clock that is gone.
 */
import { EXPIRY_KIND, isBillingRequestIdShaped } from '../billing/bill-item';
import { settleBilling } from '../billing/settle-billing';
import { billKey, type BillItem } from '../bills/types';
import { SANDBOX_BANK_KIND } from '../events/sandbox-bank';
import { frozenAt, withTestClock } from '../platform/clock';
import { clockDuePk, parseDueSk, queryDuePartition, releaseClaim, type DueEntry } from '../platform/due';
import { conflict, SANDBOX_MSG } from '../platform/errors';
import { logger } from '../platform/log';
import { mapLimit } from '../platform/retry';
import { getItem } from '../platform/table';
import { TEST_CLOCK_DELETED, type TestClockItem } from '../platform/test-clock-item';
import { cancelSchedule } from '../recurring/lifecycle-store';
import { clockScheduleIds } from '../recurring/views';
import { markDeleting, removeDeletedClock } from './test-clock-store';

/** Rounds of emptying the partition before giving up (each finds only what the last one caused). */
const MAX_DRAIN_ROUNDS = 10;
/** Past every due time: the whole partition, leases in the clock's future included. */
const END_OF_TIME = new Date('9999-12-31T23:59:59.999Z');

/** Delete the merchant's clock `id` and end what it owns; false for unknown, malformed, another merchant's or deleted. */
export async function deleteTestClock(merchantId: string, id: string): Promise<boolean> {
  const c = await markDeleting(merchantId, id);
  if (!c) return false;
  const at = new Date(c.frozenTime);
  await withTestClock(frozenAt(c.clockId, at.getTime()), async () => {
    await cancelSchedules(c, at);
    await drainPartition(c, at);
  });
  await removeDeletedClock(c.clockId);
  logger.info('test clock deleted', { clockId: c.clockId, wasAdvancing: c.status === 'advancing' });
  return true;
}

async function cancelSchedules(c: TestClockItem, at: Date): Promise<void> {
  const ids = await clockScheduleIds(c.merchantId, c.clockId, clockDuePk(c.clockId));
  await mapLimit(ids, 8, async (scheduleId) => {
    const r = await cancelSchedule(
      { party: { merchantId: c.merchantId }, reason: TEST_CLOCK_DELETED, system: true },
      scheduleId,
      at.toISOString(),
    );
    if (!r.ok) return;
    const s = r.schedule;
    // A run still at the bank: its billing fails now (the bank's later answer is refused).
    if (s.runSeq !== undefined && s.outcomeSeq !== s.runSeq && s.runBillingRequestId) await failBilling(s.runBillingRequestId, at);
  });
}

async function drainPartition(c: TestClockItem, at: Date): Promise<void> {
  for (let round = 1; round <= MAX_DRAIN_ROUNDS; round++) {
    const entries = await queryDuePartition(clockDuePk(c.clockId), END_OF_TIME);
    if (entries.length === 0) return;
    await mapLimit(entries, 8, async (e) => {
      const billingRequestId = await awaitingBilling(e);
      if (billingRequestId) await failBilling(billingRequestId, at);
      await releaseClaim({ pk: e.pk, sk: e.sk }, e.dueSk);
    });
  }
  logger.error('test clock deletion: due entries kept appearing', { clockId: c.clockId });
  throw conflict(SANDBOX_MSG.raceLost);
}

/** The billing a due entry of the clock waits on a bank for: an approval's expiry, or a simulated bank's answer to it. */
async function awaitingBilling(e: DueEntry): Promise<string | undefined> {
  const kind = parseDueSk(e.dueSk).kind;
  if (kind === EXPIRY_KIND) return e.pk.slice('BILL#'.length);
  if (kind !== SANDBOX_BANK_KIND) return undefined;
  const event = await getItem<{ type?: string; data?: { billingRequestId?: unknown } }>({ pk: e.pk, sk: e.sk });
  const id = event?.type === 'billing.request' ? event.data?.billingRequestId : undefined;
  return isBillingRequestIdShaped(id) ? id : undefined;
}

/** The billing fails (reason `test_clock_deleted`) if it still awaits its bank. */
async function failBilling(billingRequestId: string, at: Date): Promise<void> {
  const bill = await getItem<BillItem>(billKey(billingRequestId));
  if (bill?.status !== 'pending') return;
  const r = await settleBilling(bill, { status: 'failed', reason: TEST_CLOCK_DELETED }, at);
  // Contention that outlasted settleBilling's retries: the clock stays `deleting`, a retried DELETE finishes.
  if (!r.ok && r.reason === 'busy') throw conflict(SANDBOX_MSG.raceLost);
}
