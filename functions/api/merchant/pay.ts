import {
  assertSupportedCurrency,
  billPhrases,
  failureElement,
  idSeedFor,
  payBodySchema,
  phraseIdempotency,
  refusalElement,
  resultElement,
} from '../../billing/bill-request';
import { createBilling } from '../../billing/create-billing';
import { billingRefusalFor } from '../../domain/decisions';
import { BILLING_MSG } from '../../billing/messages';
import { getBillingContext, getBillingMerchant } from '../../bills/reads';
import { decisionId } from '../../domain/decisions';
import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { resolveLookupPhrase, type ResolvedLookupPhrase } from '../../customers/phrase-store';
import { mapLimit } from '../../platform/retry';

/**
 * POST /v1/customer/pay (merchant; a provider with X-Entity-Id): one-time payment requests
 * by lookupPhrase (spec rule 3, DESIGN 6.5). Independent of the agreement flow: per phrase
 * (DESIGN 6.9 precedence) an unknown or foreign lookupPhrase -> 404 `Customer not found`;
 * a decision of the pair that blocks the merchant -> 403; that decision's limits -> 403; a
 * deny/suspended decision does NOT stop a pay (the bank asks the customer anyway). Always
 * needs the customer's approval (`requiresApproval: true`, `expiresAt`). Type `one_time`.
 * With an Idempotency-Key the route is `deferred`, as bill is: a 1-phrase pay writes the key's
 * record, with its answer, in the billing's own transaction (DESIGN 10.2); a pay of several
 * phrases claims the key first; a refusal is stored after.
 */
export const handler = endpoint({ body: payBodySchema, idempotency: 'deferred' }, async ({ body, principal, headers, idempotency }) => {
  assertSupportedCurrency(body.currency);
  const { folded, replay } = await phraseIdempotency(idempotency, body.lookupPhrases);
  if (replay) return replay;
  const merchant = await getBillingMerchant(principal.id);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  const entityId = merchant.id;

  const distinct = [...new Set(body.lookupPhrases)];
  const resolved = new Map<string, ResolvedLookupPhrase | undefined>();
  await mapLimit(distinct, 16, async (p) => {
    resolved.set(p, await resolveLookupPhrase(p, entityId));
  });
  const decisionIds = [...resolved.values()].filter((r): r is ResolvedLookupPhrase => !!r).map((r) => decisionId(entityId, r.customer.id));
  const { decisions, counters } = await getBillingContext(decisionIds);

  return billPhrases('lookupPhrase', body.lookupPhrases, entityId, BILLING_MSG.paymentCreated, folded, async (phrase, rider) => {
    const found = resolved.get(phrase);
    if (!found) return failureElement('lookupPhrase', phrase, entityId, 404, MSG.customerNotFound);
    const decision = decisions.get(decisionId(entityId, found.customer.id));
    const refusal = billingRefusalFor('one_time', decision);
    if (refusal) return refusalElement('lookupPhrase', phrase, entityId, refusal);
    const r = await createBilling({
      merchant,
      customer: { id: found.customer.id, bankId: found.bankId, clientRef: found.customer.clientRef },
      decision,
      counter: counters.get(decisionId(entityId, found.customer.id)) ?? null,
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      type: 'one_time',
      idSeed: idSeedFor(headers, principal.keyId, 'pay', entityId, phrase),
      rider,
    });
    return resultElement('lookupPhrase', phrase, entityId, r, BILLING_MSG.paymentCreated);
  });
});
