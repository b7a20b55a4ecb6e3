import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { changeRefusal } from '../../disputes/answers';
import { resolveDispute } from '../../disputes/store';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute } from '../../disputes/views';

const body = z.strictObject({ outcome: z.enum(['won', 'lost']) });

/**
 * POST /v1/bank/disputes/{disputeId}/resolve (bank): decide a dispute that needs a response or
 * is under review. `won`: the merchant keeps the money (it returns to its balance); `lost`:
 * the bank keeps it. Closed: 409 `Dispute is closed`.
 */
export const handler = endpoint({ body, description: 'Decide a dispute you opened.' }, async ({ params, body, principal }) => {
  const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
  if (!d) throw notFound(DISPUTE_MSG.notFound);
  const r = await resolveDispute(d.disputeId, body.outcome);
  if (!r.ok) throw changeRefusal(r);
  return ok(200, DISPUTE_MSG.updated, disputeView(r.dispute));
});
