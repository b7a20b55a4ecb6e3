/**
 * Due kind `refund.complete` (sandbox only): the simulated bank executes a refund
 * REFUND_AUTO_COMPLETE_SECONDS after it was initiated: pending → processing → completed,
 * each with `refund.updated` (refunds/store.ts). Live refunds carry no due attributes: the
 * customer's bank confirms them (docs/decisions/refunds.md).
 */
import { completeRefund as complete } from './store';
import { refundKey, type RefundItem } from './views';
import { releaseClaim, type DueJob } from '../platform/due';

/** Complete a refund now (the sandbox helper `POST /v1/sandbox/refunds/{refundId}/complete`). */
export function completeRefund(refundId: string, now: Date): Promise<RefundItem | undefined> {
  return complete(refundId, now);
}

export async function completeDueRefund(job: DueJob): Promise<void> {
  const refundId = job.key.pk.slice('REFUND#'.length);
  const r = await complete(refundId, new Date(job.now), { leasedSk: job.leasedSk });
  if (r && (r.status === 'completed' || r.status === 'failed')) return;
  if (!r) {
    // The refund is gone: take its key off the index if this claim still holds it.
    await releaseClaim(refundKey(refundId), job.leasedSk);
    return;
  }
  // Another claim owns it now: that one finishes it.
  if (r.dueSk !== job.leasedSk) return;
  // Still ours and not finished: a transient failure (e.g. a cancelled transaction). Never
  // drop it from the index: fail the job so it is retried (and the lease makes it due again).
  throw new Error(`refund ${refundId} is still ${r.status}; retrying`);
}
