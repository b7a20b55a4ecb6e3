import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute } from '../../disputes/views';

/** GET /v1/bank/disputes/{disputeId} (bank). Another's: 404 `Dispute not found`. */
export const handler = endpoint({ description: 'One dispute you opened.' }, async ({ params, principal }) => {
  const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
  if (!d) throw notFound(DISPUTE_MSG.notFound);
  return ok(200, DISPUTE_MSG.retrieved, disputeView(d));
});
