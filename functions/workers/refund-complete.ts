/**
 * Due kind `refund.complete` (sandbox only): the simulated bank executes a refund
 * REFUND_AUTO_COMPLETE_SECONDS after it was initiated: pending → processing → completed,
 * each with `refund.updated` (store/refunds.ts). Live refunds carry no due attributes: the
 * customer's bank confirms them (docs/decisions.md "Money").
 */
import { db } from '../store/clients';
import { completeRefund as complete, getRefund, REFUND_COMPLETE_KIND, refundKey, type RefundItem } from '../store/refunds';
import { isConditionFailure, UpdateCommand } from '../store/table';
import { clearDueUpdate, registerDueKind, type DueJob } from './due';

/** Complete a refund now (the sandbox helper `POST /v1/sandbox/refunds/{refundId}/complete`). */
export function completeRefund(refundId: string, now: Date): Promise<RefundItem | undefined> {
  return complete(refundId, now);
}

export async function runRefundComplete(job: DueJob): Promise<void> {
  const refundId = job.key.pk.slice('REFUND#'.length);
  const r = await complete(refundId, new Date(job.now), { leasedSk: job.leasedSk });
  if (r && (r.status === 'completed' || r.status === 'failed')) return;
  // Not finished and still ours (an unexpected state): leave the index so it is not retried forever.
  const current = r ?? (await getRefund(refundId));
  if (current && current.dueSk === job.leasedSk && current.status !== 'processing') {
    await db()
      .send(new UpdateCommand(clearDueUpdate(refundKey(refundId), job.leasedSk).Update))
      .catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
  }
}

registerDueKind(REFUND_COMPLETE_KIND, runRefundComplete);
