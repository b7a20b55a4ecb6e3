import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { changeRefusal } from '../../disputes/answers';
import { acceptDispute } from '../../disputes/store';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute } from '../../disputes/views';

/**
 * POST /v1/disputes/{disputeId}/accept (merchant): concede: needs_response → lost (the
 * customer's bank keeps the amount). Answered already: 409; closed: 409 `Dispute is closed`.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: 'Accept a dispute (the amount goes back to the customer).' },
  async ({ params, principal }) => {
    const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
    if (!d) throw notFound(DISPUTE_MSG.notFound);
    const r = await acceptDispute(d);
    if (!r.ok) throw changeRefusal(r);
    return ok(200, DISPUTE_MSG.updated, disputeView(r.dispute));
  },
);
