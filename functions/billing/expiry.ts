/**
 * Due kind `billing.expiry` (DESIGN 5, rule 6): a billing that needs the customer's approval
 * sits on the due index from `expiresAt - EXPIRY_LEAD_MS`. When the tick claims it and it
 * is still pending, it becomes `expired` at `expiresAt` (the worker waits out the lead, never
 * expiring early): reservation released, `billing.response` (status expired, customerAction
 * declined) to the merchant and its provider, due attributes removed, all in one
 * transaction conditioned on `pending` AND this worker's lease. A billing answered in the
 * meantime left the index in its own transition; a repeated job changes nothing.
 *
 * "Now" is the tick's time (`job.now`): a tick at or after `expiresAt` expires at once (tests
 * drive time this way). Only a claim in the lead window (tick time before `expiresAt`) looks
 * at the clock: it waits until the clock reaches `expiresAt`, because the bank may still
 * answer until then (bank-response checks `expiresAt` against the clock), or puts the item
 * back on the index at `expiresAt` if that is further away than the lead.
 */
import { EXPIRY_KIND, EXPIRY_LEAD_MS } from './bill-item';
import { expireBilling } from './settle-billing';
import { logger } from '../platform/log';
import type { BillItem } from '../bills/types';
import { getItem } from '../platform/table';
import { releaseClaim, rescheduleClaim, type DueJob } from '../platform/due';
import { sleep } from '../platform/retry';

/** Longest wait for the wall clock to reach `expiresAt` (the lead plus clock slack). */
const MAX_WAIT_MS = EXPIRY_LEAD_MS + 1000;

export async function expireDueBilling(job: DueJob): Promise<void> {
  const bill = await getItem<BillItem>(job.key);
  if (!bill) return;
  if (bill.status !== 'pending' || !bill.expiresAt) {
    // Final billings leave the index in their own transition; clear a leftover claim of ours.
    await releaseClaim(job.key, job.leasedSk);
    return;
  }
  const expiresMs = Date.parse(bill.expiresAt);
  if (Date.parse(job.now) < expiresMs) {
    // Claimed in the lead window: wait for the clock to reach expiresAt.
    const wait = expiresMs - Date.now();
    if (wait > MAX_WAIT_MS) return reschedule(job, bill.expiresAt);
    if (wait > 0) await sleep(wait + 1);
  }
  const at = new Date(Math.max(Date.parse(job.now), expiresMs));
  const result = await expireBilling(bill, at, { leasedSk: job.leasedSk });
  if (result.ok) logger.info('billing expired', { billingRequestId: bill.billingRequestId });
  else if (result.reason === 'busy') throw new Error('billing expiry contention; the lease makes it due again');
}

/** Claimed too early for the clock: due again at `expiresAt` (only while our lease holds and it is pending). */
async function reschedule(job: DueJob, expiresAt: string): Promise<void> {
  await rescheduleClaim(job.key, EXPIRY_KIND, job.id, expiresAt, job.leasedSk, 'pending');
}
