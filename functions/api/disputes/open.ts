import * as z from 'zod';
import { endpoint, ok, riding } from '../../http/endpoint';
import { majorAmount } from '../../http/money-schemas';
import { openRefusal } from '../../disputes/answers';
import { openDispute } from '../../disputes/store';
import { DISPUTE_MSG, DISPUTE_REASONS, disputeView, type DisputeItem } from '../../disputes/views';

const body = z.strictObject({
  /** The transaction reference (`txn_…`) of a succeeded debit of one of the bank's customers. */
  reference: z.string().trim().min(1).max(100),
  reason: z.enum(DISPUTE_REASONS),
  /** Major units, at least 0.01; default: what is left (amount − refunded − already disputed). */
  amount: majorAmount({ minMinor: 1 }).optional(),
});

const reply = (d: DisputeItem) => ok(201, DISPUTE_MSG.opened, disputeView(d));

/**
 * POST /v1/bank/disputes (bank): dispute a succeeded debit of one of its customers. The
 * amount leaves the merchant's balance at once; the merchant gets `dispute.created` and has
 * until `respondBy` to respond or accept. 201 `{disputeId, reference, status: "needs_response",
 * amount, reason, respondBy, createdAt, ...}`. With an Idempotency-Key the route is
 * `deferred`: the key's record, with its 201, is written in the transaction that opens the
 * dispute and moves its amount (DESIGN 10.2); a refusal is stored after.
 */
export const handler = endpoint(
  { body, description: 'Dispute a debit of one of your customers. Honours Idempotency-Key.', idempotency: 'deferred' },
  async ({ body, principal, requestKey, idempotency }) => {
    const r = await riding(idempotency, reply, (rider) =>
      openDispute({ bankId: principal.id, reference: body.reference, reason: body.reason, amount: body.amount, requestKey, rider }),
    );
    if (!r.ok) throw openRefusal(r);
    return reply(r.dispute);
  },
);
