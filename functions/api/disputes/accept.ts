import * as z from 'zod';
import { endpoint, ok, riding } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { changeRefusal } from '../../disputes/answers';
import { acceptDispute } from '../../disputes/store';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute, type DisputeItem } from '../../disputes/views';

const reply = (d: DisputeItem) => ok(200, DISPUTE_MSG.updated, disputeView(d));

/**
 * POST /v1/disputes/{disputeId}/accept (merchant): concede: needs_response → lost (the
 * customer's bank keeps the amount). Answered already: 409; closed: 409 `Dispute is closed`.
 * With an Idempotency-Key the route is `deferred`: the key's record, with its 200, is written in
 * the transaction that closes the dispute (DESIGN 10.2); a refusal is stored after.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: 'Accept a dispute (the amount goes back to the customer).', idempotency: 'deferred' },
  async ({ params, principal, idempotency }) => {
    const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
    if (!d) throw notFound(DISPUTE_MSG.notFound);
    const r = await riding(idempotency, reply, (rider) => acceptDispute(d, undefined, rider));
    if (!r.ok) throw changeRefusal(r);
    return reply(r.dispute);
  },
);
