import * as z from 'zod';
import { endpoint, ok, riding } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { changeRefusal } from '../../disputes/answers';
import { resolveDispute } from '../../disputes/store';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute, type DisputeItem } from '../../disputes/views';

const body = z.strictObject({ outcome: z.enum(['won', 'lost']) });

const reply = (d: DisputeItem) => ok(200, DISPUTE_MSG.updated, disputeView(d));

/**
 * POST /v1/bank/disputes/{disputeId}/resolve (bank): decide a dispute that needs a response or
 * is under review. `won`: the merchant keeps the money (it returns to its balance); `lost`:
 * the bank keeps it. Closed: 409 `Dispute is closed`. With an Idempotency-Key the route is
 * `deferred`: the key's record, with its 200, is written in the transaction that decides the
 * dispute (DESIGN 10.2); a refusal is stored after.
 */
export const handler = endpoint(
  { body, description: 'Decide a dispute you opened.', idempotency: 'deferred' },
  async ({ params, body, principal, idempotency }) => {
    const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
    if (!d) throw notFound(DISPUTE_MSG.notFound);
    const r = await riding(idempotency, reply, (rider) => resolveDispute(d.disputeId, body.outcome, undefined, rider));
    if (!r.ok) throw changeRefusal(r);
    return reply(r.dispute);
  },
);
