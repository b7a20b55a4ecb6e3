import * as z from 'zod';
import { answerBilling, bankResponseSchema } from '../../billing/bank-answer';
import { BILLING_MSG } from '../../billing/messages';
import { endpoint } from '../../http/endpoint';
import { AppError } from '../../platform/errors';
import { arrayReply, errorFields, type ArrayElement } from '../../http/multi-status';

const bodySchema = z.strictObject({ responses: z.array(bankResponseSchema).min(1).max(100) });

/** Billings answered at once; answers to the same billing run one after another, in order. */
const CONCURRENCY = 8;

/**
 * POST /v1/billing/bank-responses {responses: [<body of bank-response>, ...]} (1-100; bank):
 * each element answered exactly as `POST /v1/billing/bank-response` answers it (the same
 * code: billing/bank-answer.ts), one element `{billingRequestId, statusCode, success,
 * message}` per input, in order; the HTTP status is the elements' common statusCode, or 207
 * (DESIGN 6.5). An element repeating an answer already applied is that element's 409, as the
 * single route's repeat. An invalid element refuses the whole request (400, nothing written).
 */
export const handler = endpoint(
  { body: bodySchema, description: 'Answer up to 100 billing requests in one request; one element per answer.' },
  async ({ body, principal }) => {
    const elements: ArrayElement[] = new Array(body.responses.length);
    const groups = new Map<string, number[]>();
    body.responses.forEach((r, i) => {
      groups.set(r.billingRequestId, [...(groups.get(r.billingRequestId) ?? []), i]);
    });
    const queue = [...groups.values()];
    const work = async () => {
      for (let group = queue.shift(); group; group = queue.shift()) {
        for (const i of group) elements[i] = await element(principal.id, body.responses[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, work));
    return arrayReply(elements);
  },
);

async function element(bankId: string, response: z.output<typeof bankResponseSchema>): Promise<ArrayElement> {
  const { billingRequestId } = response;
  try {
    await answerBilling(bankId, response);
    return { billingRequestId, statusCode: 200, success: true, message: BILLING_MSG.answered };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return { billingRequestId, ...errorFields(e) };
  }
}
