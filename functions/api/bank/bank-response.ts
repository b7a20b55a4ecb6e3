import { answerBilling, bankResponseSchema, type BankAnswered } from '../../billing/bank-answer';
import { BILLING_MSG } from '../../billing/messages';
import { endpoint, ok, riding } from '../../http/endpoint';

const reply = (answered: BankAnswered) => ok(200, BILLING_MSG.answered, answered);

/**
 * POST /v1/billing/bank-response (bank, its own customers' billing requests only): the
 * customer's answer (billing/bank-answer.ts). Answered already or expired -> 409; another
 * bank's (or an unknown) request -> 404. With an Idempotency-Key the route is `deferred`: the
 * key's record, with its 200, is written in the answer's own transaction (DESIGN 10.2), so a
 * crash after the commit cannot leave the change without its answer; a refusal is stored after.
 */
export const handler = endpoint({ body: bankResponseSchema, idempotency: 'deferred' }, async ({ body, principal, idempotency }) => {
  return reply(await riding(idempotency, reply, (rider) => answerBilling(principal.id, body, rider)));
});
