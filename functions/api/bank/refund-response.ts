import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok, riding } from '../../http/endpoint';
import { conflict, fill, notFound } from '../../platform/errors';
import { completeRefund, failRefund, markRefundProcessing } from '../../refunds/store';
import { getRefund, refundView, type RefundItem } from '../../refunds/views';
import { MONEY_MSG } from '../../transactions/messages';

const body = z.strictObject({
  refundId: z.string().min(1).max(100),
  status: z.enum(['processing', 'completed', 'failed']),
  bankRefundId: safeText(100).optional(),
  reason: safeText(500).optional(),
});

const reply = (refund: RefundItem) => ok(200, 'Refund updated', refundView(refund));

/**
 * POST /v1/billing/refund-response (bank, its own customers' refunds): the bank reports
 * what it did with a refund it received as `refund.requested`: processing, completed
 * (the money moved back to the customer) or failed (the reservation is released).
 * A refund that already completed or failed is 409; another bank's is 404. With an
 * Idempotency-Key the route is `deferred`: the key's record, with its 200, is written in the
 * transaction that makes the status asked for (DESIGN 10.2); any other answer is stored after.
 */
export const handler = endpoint(
  { body, description: 'The bank confirms, or fails, a refund it executed.', idempotency: 'deferred' },
  async ({ body, principal, idempotency }) => {
    const refund = await getRefund(body.refundId);
    if (!refund || refund.bankId !== principal.id) throw notFound(MONEY_MSG.refundNotFound);
    if (refund.status === 'completed' || refund.status === 'failed') {
      throw conflict(fill(MONEY_MSG.refundFinished, { status: refund.status }));
    }
    const now = new Date();
    const next = await riding(idempotency, reply, (rider) =>
      body.status === 'processing'
        ? markRefundProcessing(refund.refundId, now, undefined, rider)
        : body.status === 'completed'
          ? completeRefund(refund.refundId, now, undefined, rider)
          : failRefund(refund.refundId, body.reason ?? 'Refused by the bank', now, rider),
    );
    if (!next) throw notFound(MONEY_MSG.refundNotFound);
    if (next.status !== body.status) throw conflict(fill(MONEY_MSG.refundFinished, { status: next.status }));
    return reply(next);
  },
);
