import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { getRefund, refundView } from '../../refunds/views';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/refunds/{refundId}/status (merchant): `{refundId, reference, amount, currency,
 * status (pending|processing|completed|failed), reason, expectedBy, createdAt, updatedAt,
 * completedAt}`. Another merchant's refund is 404 `Refund not found`.
 */
export const handler = endpoint({ description: "Read a refund's status." }, async ({ params, principal }) => {
  const refundId = params.refundId ?? '';
  const r = refundId.length > 0 && refundId.length <= 100 ? await getRefund(refundId) : undefined;
  if (!r || r.merchantId !== principal.id) throw notFound(MONEY_MSG.refundNotFound);
  return ok(200, MONEY_MSG.refundRetrieved, refundView(r));
});
