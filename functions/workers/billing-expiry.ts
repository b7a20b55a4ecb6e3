/**
 * Due kind `billing.expiry` (DESIGN 5, rule 6): a billing that needs the customer's approval
 * sits on the due index at its `expiresAt`. When the tick claims it and it is still
 * pending, it becomes `expired`: reservation released, `billing.response` (status expired,
 * customerAction declined) to the merchant and its provider, due attributes removed, all in
 * one transaction conditioned on `pending` AND this worker's lease. A billing answered in
 * the meantime left the index in its own transition; a repeated job changes nothing.
 */
import { EXPIRY_KIND } from '../billing/bill-item';
import { expireBilling } from '../billing/settle-billing';
import { logger } from '../http/log';
import type { BillItem } from '../store/billing-types';
import { db } from '../store/clients';
import { getItem, isConditionFailure, UpdateCommand } from '../store/table';
import { clearDueUpdate, registerDueKind, type DueJob } from './due';

export async function expireDueBilling(job: DueJob): Promise<void> {
  const bill = await getItem<BillItem>(job.key);
  if (!bill) return;
  if (bill.status !== 'pending') {
    // Final billings leave the index in their own transition; clear a leftover claim of ours.
    await db()
      .send(new UpdateCommand(clearDueUpdate(job.key, job.leasedSk).Update))
      .catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
    return;
  }
  const result = await expireBilling(bill, new Date(job.now), { leasedSk: job.leasedSk });
  if (result.ok) logger.info('billing expired', { billingRequestId: bill.billingRequestId });
  else if (result.reason === 'busy') throw new Error('billing expiry contention; the lease makes it due again');
}

registerDueKind(EXPIRY_KIND, expireDueBilling);
