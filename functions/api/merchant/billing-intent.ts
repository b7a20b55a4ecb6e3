import * as z from 'zod';
import { allowedDecisions } from '../../domain/decisions';
import { currencySchema } from '../../http/money-schemas';
import { trustOf } from '../../domain/trust';
import { commit } from '../../events/outbox';
import { sandboxBankDue } from '../../events/sandbox-bank';
import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { assertSupportedCurrency } from '../../billing/bill-request';
import { logger } from '../../platform/log';
import { arrayReply, failedElement, type ArrayElement } from '../../http/multi-status';
import { nonEmpty } from '../../http/schemas';
import { resolveLookupPhrase } from '../../customers/phrase-store';
import { intentEventData, newIntentItem, putNewIntent } from '../../decisions/intents';
import { getParticipant } from '../../identity/participant-store';
import { nowIso } from '../../platform/table';

/** Most phrases in one request. */
export const MAX_INTENT_PHRASES = 100;
/** Phrases handled at once (each is its own transaction). */
const CONCURRENCY = 8;

const bodySchema = z.strictObject({
  lookupPhrases: z.array(z.string().min(1, 'must not be empty').max(1000)).min(1, 'must list at least one phrase').max(MAX_INTENT_PHRASES),
  currency: currencySchema,
  description: nonEmpty(500),
});

/**
 * POST /v1/billing/intent (merchant): per lookupPhrase, record an intent and send
 * `billing.intent` to the customer's bank, the two in one transaction (one per phrase, so a
 * failure of one phrase never undoes another's). The body is the array of elements, one per
 * input phrase in input order; the HTTP status is their common statusCode or 207.
 * A phrase listed twice is one intent: both positions get the same element.
 */
export const handler = endpoint({ body: bodySchema }, async ({ body, principal }) => {
  assertSupportedCurrency(body.currency);
  const merchant = await getParticipant(principal.id);
  if (merchant?.type !== 'merchant') throw notFound(MSG.merchantNotFound);
  const allowed = allowedDecisions(trustOf(merchant));
  const entityId = merchant.id;

  const distinct = [...new Set(body.lookupPhrases)];
  const byPhrase = new Map<string, ArrayElement>();

  const one = async (lookupPhrase: string): Promise<ArrayElement> => {
    const found = await resolveLookupPhrase(lookupPhrase, entityId);
    if (!found) return { ...failedElement(404, MSG.customerNotFound), lookupPhrase, entityId };
    const { customer } = found;
    const now = nowIso();
    const intent = newIntentItem(
      {
        customerId: customer.id,
        bankId: customer.bankId,
        merchantId: entityId,
        lookupPhrase,
        currency: body.currency,
        description: body.description,
      },
      now,
    );
    try {
      await commit(
        [putNewIntent(intent)],
        [
          {
            type: 'billing.intent',
            to: customer.bankId,
            data: intentEventData(intent, customer.clientRef, merchant.name, allowed),
          },
        ],
        { eventDue: sandboxBankDue },
      );
    } catch (error) {
      // One phrase's failure is that element's, not the request's (the others are committed).
      logger.error('billing intent commit failed', { merchantId: entityId, intentId: intent.intentId, error: error as Error });
      return { ...failedElement(500, MSG.internal), lookupPhrase, entityId };
    }
    return { statusCode: 200, success: true, message: 'Billing intent sent', lookupPhrase, entityId, intentId: intent.intentId };
  };

  let next = 0;
  const worker = async () => {
    while (next < distinct.length) {
      const phrase = distinct[next++]!;
      byPhrase.set(phrase, await one(phrase));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, distinct.length) }, worker));

  return arrayReply(body.lookupPhrases.map((p) => byPhrase.get(p)!));
});
