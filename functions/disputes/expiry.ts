/**
 * Due kind `dispute.expiry` (DESIGN 9.4): a dispute still `needs_response` at its `respondBy`
 * (DISPUTE_RESPONSE_SECONDS after it was opened) is lost, actor `system`: the disputed amount
 * stays with the customer's bank. Conditional on the claim: a merchant's answer or a bank's
 * decision that came first took the dispute off the index, and a repeated job changes nothing.
 */
import { releaseClaim, type DueJob } from '../platform/due';
import { expireDispute } from './store';
import { disputeKey } from './views';

export async function runDisputeExpiry(job: DueJob): Promise<void> {
  const disputeId = job.key.pk.slice('DISPUTE#'.length);
  const r = await expireDispute(disputeId, job.leasedSk, new Date(job.now));
  if (r.ok || (r.dispute && r.dispute.dueSk !== job.leasedSk)) return; // done, or answered / claimed again meanwhile
  if (!r.dispute) {
    await releaseClaim(disputeKey(disputeId), job.leasedSk); // gone: take its key off the index
    return;
  }
  // Still ours and not expired (contention): fail the job so the lease makes it due again.
  throw new Error(`dispute ${disputeId} not expired (${r.reason}); retrying`);
}
