import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { multilineText } from '../../http/schemas';
import { notFound } from '../../platform/errors';
import { changeRefusal } from '../../disputes/answers';
import { respondToDispute } from '../../disputes/store';
import { disputeFor, DISPUTE_MSG, disputeView, getDispute, MAX_EVIDENCE_CHARS } from '../../disputes/views';

const body = z.strictObject({
  evidence: z.strictObject({
    /** 1-5,000 characters; line breaks allowed. */
    text: multilineText(MAX_EVIDENCE_CHARS),
  }),
});

/**
 * POST /v1/disputes/{disputeId}/respond (merchant): answer with evidence before `respondBy`:
 * needs_response → under_review (the bank decides). Answered already: 409; closed (or past
 * respondBy): 409 `Dispute is closed`.
 */
export const handler = endpoint({ body, description: 'Answer a dispute with evidence.' }, async ({ params, body, principal }) => {
  const d = disputeFor(await getDispute(params.disputeId ?? ''), principal);
  if (!d) throw notFound(DISPUTE_MSG.notFound);
  const r = await respondToDispute(d, body.evidence.text);
  if (!r.ok) throw changeRefusal(r);
  return ok(200, DISPUTE_MSG.updated, disputeView(r.dispute));
});
