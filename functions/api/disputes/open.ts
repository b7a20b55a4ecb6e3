import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { majorAmount } from '../../http/money-schemas';
import { openRefusal } from '../../disputes/answers';
import { openDispute } from '../../disputes/store';
import { DISPUTE_MSG, DISPUTE_REASONS, disputeView } from '../../disputes/views';

const body = z.strictObject({
  /** The transaction reference (`txn_…`) of a succeeded debit of one of the bank's customers. */
  reference: z.string().trim().min(1).max(100),
  reason: z.enum(DISPUTE_REASONS),
  /** Major units, at least 0.01; default: what is left (amount − refunded − already disputed). */
  amount: majorAmount({ minMinor: 1 }).optional(),
});

/**
 * POST /v1/bank/disputes (bank): dispute a succeeded debit of one of its customers. The
 * amount leaves the merchant's balance at once; the merchant gets `dispute.created` and has
 * until `respondBy` to respond or accept. 201 `{disputeId, reference, status: "needs_response",
 * amount, reason, respondBy, createdAt, ...}`.
 */
export const handler = endpoint(
  { body, description: 'Dispute a debit of one of your customers. Honours Idempotency-Key.' },
  async ({ body, principal, requestKey }) => {
    const r = await openDispute({ bankId: principal.id, reference: body.reference, reason: body.reason, amount: body.amount, requestKey });
    if (!r.ok) throw openRefusal(r);
    return ok(201, DISPUTE_MSG.opened, disputeView(r.dispute));
  },
);
