import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { toMajor } from '../../domain/money';
import { majorAmount } from '../../http/money-schemas';
import { endpoint, ok, riding } from '../../http/endpoint';
import { badRequest, conflict, notFound } from '../../platform/errors';
import { initiateRefund } from '../../refunds/store';
import { MIN_REFUND_MINOR, type RefundItem } from '../../refunds/views';
import { MONEY_MSG } from '../../transactions/messages';

const body = z.strictObject({
  /** The transaction reference (`txn_…`) from the bill or pay response. */
  reference: z.string().trim().min(1).max(100),
  /** Major units, at least 0.01, at most 2 decimals; default: the whole refundable remainder. */
  amount: majorAmount({ minMinor: MIN_REFUND_MINOR }).optional(),
  reason: safeText(500).optional(),
});

const reply = (f: RefundItem) =>
  ok(201, MONEY_MSG.refundInitiated, {
    refundId: f.refundId,
    reference: f.reference,
    amount: toMajor(f.amount),
    currency: f.currency,
    status: f.status,
    expectedBy: f.expectedBy,
  });

/**
 * POST /v1/refunds/initiate (merchant): reserve the amount against the transaction's
 * refundable remainder and ask the customer's bank to refund it (`refund.requested`).
 * 201 `{refundId, reference, amount, currency, status: "pending", expectedBy}`. With an
 * Idempotency-Key the route is `deferred`: the key's record, with its 201, is written in the
 * refund's own transaction (DESIGN 10.2); a refusal is stored after.
 */
export const handler = endpoint(
  { body, description: 'Start a full or partial refund of a succeeded transaction. Honours Idempotency-Key.', idempotency: 'deferred' },
  async ({ body, principal, requestKey, idempotency }) => {
    const r = await riding(idempotency, reply, (rider) =>
      initiateRefund({ merchantId: principal.id, reference: body.reference, amount: body.amount, reason: body.reason, requestKey, rider }),
    );
    if (!r.ok) {
      switch (r.reason) {
        case 'not_found':
          throw notFound(MONEY_MSG.transactionNotFound);
        case 'not_refundable':
          throw conflict(MONEY_MSG.notRefundable);
        case 'exceeds':
          throw badRequest(MONEY_MSG.refundExceeds);
        case 'busy':
          throw conflict(MONEY_MSG.refundBusy);
      }
    }
    return reply(r.refund);
  },
);
