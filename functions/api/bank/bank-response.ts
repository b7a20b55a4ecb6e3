import { answerBilling, bankResponseSchema } from '../../billing/bank-answer';
import { BILLING_MSG } from '../../billing/messages';
import { endpoint, ok } from '../../http/endpoint';

/**
 * POST /v1/billing/bank-response (bank, its own customers' billing requests only): the
 * customer's answer (billing/bank-answer.ts). Answered already or expired -> 409; another
 * bank's (or an unknown) request -> 404.
 */
export const handler = endpoint({ body: bankResponseSchema }, async ({ body, principal }) =>
  ok(200, BILLING_MSG.answered, await answerBilling(principal.id, body)),
);
