import { readAgreementPhrase } from '../../domain/agreement-phrase';
import { assertSupportedCurrency, billBodySchema, idSeedFor, perPhrase, refusalElement, resultElement } from '../../billing/bill-request';
import { createBilling } from '../../billing/create-billing';
import { billingRefusalFor } from '../../domain/decisions';
import { BILLING_MSG } from '../../billing/messages';
import { getBillingCustomers, getBillingMerchant, getDecisionsAndTrust } from '../../bills/reads';
import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { arrayReply } from '../../http/multi-status';

/**
 * POST /v1/customer/bill (merchant; a provider with X-Entity-Id): bill customers with their
 * agreementPhrases. Per phrase (DESIGN 6.9 precedence): blocked merchant -> 403; no
 * decision, deny, suspended, or an unknown / foreign / tampered phrase -> 403 not approved;
 * limits -> 403; else ONE transaction reserves the amount, records the billing request and
 * sends `billing.request` to the bank. The body is the array of elements in input order;
 * the HTTP status is their common statusCode, or 207.
 *
 * Reads: the merchant once (cached), every decision and the merchant's trust in one BatchGetItem, the customers' bank data in
 * one more (cached); then one transaction per phrase.
 */
export const handler = endpoint({ body: billBodySchema }, async ({ body, principal, headers }) => {
  assertSupportedCurrency(body.currency);
  const merchant = await getBillingMerchant(principal.id);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  const entityId = merchant.id;

  const distinct = [...new Set(body.agreementPhrases)];
  const decisionIdOf = new Map<string, string | undefined>();
  await Promise.all(distinct.map(async (p) => decisionIdOf.set(p, await readAgreementPhrase(p, entityId))));
  const ids = [...new Set([...decisionIdOf.values()].filter((v): v is string => v !== undefined))];
  // The decisions and the merchant's trust now (DESIGN 8.1), in one BatchGetItem.
  const { decisions, trust } = await getDecisionsAndTrust(ids, entityId);
  const billable = [...decisions.values()].filter((d) => d.merchantId === entityId && !billingRefusalFor('agreement', d));
  const customers = await getBillingCustomers(billable.map((d) => d.customerId));

  const elements = await perPhrase('phrase', body.agreementPhrases, entityId, async (phrase) => {
    const id = decisionIdOf.get(phrase);
    const decision = id ? decisions.get(id) : undefined;
    if (!decision || decision.merchantId !== entityId) return refusalElement('phrase', phrase, entityId, 'not_approved');
    const refusal = billingRefusalFor('agreement', decision);
    if (refusal) return refusalElement('phrase', phrase, entityId, refusal);
    const customer = customers.get(decision.customerId);
    if (!customer) return refusalElement('phrase', phrase, entityId, 'not_approved');
    const r = await createBilling({
      merchant,
      customer,
      decision,
      trust,
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      type: 'agreement',
      idSeed: idSeedFor(headers, principal.keyId, 'bill', entityId, phrase),
    });
    return resultElement('phrase', phrase, entityId, r, BILLING_MSG.created);
  });
  return arrayReply(elements);
});
