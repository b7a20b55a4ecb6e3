import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { conflict, notFound, SANDBOX_MSG } from '../../platform/errors';
import { completeRefund } from '../../refunds/store';
import { getRefund, refundView } from '../../refunds/views';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * POST /v1/sandbox/refunds/{refundId}/complete (merchant or provider with X-Entity-Id;
 * sandbox only): the customer's bank finishes the refund now (`completeRefund`: pending →
 * processing → completed, the money moved, `refund.updated` at each step). Completed already:
 * 200 with the refund as it is. Failed: 409. Not the caller's (or unknown): 404 `Refund not found`.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: 'Finish one of your refunds now (as the customer’s bank would).' },
  async ({ params, principal }) => {
    const refundId = params.refundId ?? '';
    const r = refundId.length > 0 && refundId.length <= 100 ? await getRefund(refundId) : undefined;
    if (!r || r.merchantId !== principal.id) throw notFound(MONEY_MSG.refundNotFound);
    if (r.status === 'failed') throw conflict(SANDBOX_MSG.refundFailed);
    const done = await completeRefund(refundId, clockNow());
    if (!done) throw notFound(MONEY_MSG.refundNotFound);
    if (done.status === 'failed') throw conflict(SANDBOX_MSG.refundFailed);
    if (done.status !== 'completed') throw conflict(MONEY_MSG.refundBusy);
    return ok(200, SANDBOX_MSG.refundCompleted, refundView(done));
  },
);
