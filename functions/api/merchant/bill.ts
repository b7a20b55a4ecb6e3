import { readAgreementPhrase } from '../../domain/agreement-phrase';
import {
  assertSupportedCurrency,
  billBodySchema,
  billPhrases,
  idSeedFor,
  phraseIdempotency,
  refusalElement,
  resultElement,
} from '../../billing/bill-request';
import { createBilling } from '../../billing/create-billing';
import { billingRefusalFor } from '../../domain/decisions';
import { BILLING_MSG } from '../../billing/messages';
import { customerOfDecision, getBillingContext, getBillingCustomers } from '../../bills/reads';
import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';

/**
 * POST /v1/customer/bill (merchant; a provider with X-Entity-Id): bill customers with their
 * agreementPhrases. Per phrase (DESIGN 6.9 precedence): blocked merchant -> 403; no
 * decision, deny, suspended, or an unknown / foreign / tampered phrase -> 403 not approved;
 * limits -> 403; else ONE transaction reserves the amount, records the billing request and
 * sends `billing.request` to the bank. The body is the array of elements in input order;
 * the HTTP status is their common statusCode, or 207.
 *
 * DynamoDB requests (DESIGN 9.6: at most 3 for a 1-phrase bill, auth included): the key,
 * then the merchant, every decision and their pairs' counter items in one BatchGetItem
 * (the customer's bank data is on the decision; decisions made before release 3: one more,
 * cached), then one transaction per phrase. With an Idempotency-Key the route is `deferred`:
 * a 1-phrase bill writes the key's record, with its answer, in the billing's own transaction
 * (a request with more phrases claims the key first, as every other route does).
 */
export const handler = endpoint({ body: billBodySchema, idempotency: 'deferred' }, async ({ body, principal, headers, idempotency }) => {
  assertSupportedCurrency(body.currency);
  const entityId = principal.id;
  const { folded, replay } = await phraseIdempotency(idempotency, body.agreementPhrases);
  if (replay) return replay;

  const distinct = [...new Set(body.agreementPhrases)];
  const decisionIdOf = new Map<string, string | undefined>();
  await Promise.all(distinct.map(async (p) => decisionIdOf.set(p, await readAgreementPhrase(p, entityId))));
  const ids = [...new Set([...decisionIdOf.values()].filter((v): v is string => v !== undefined))];
  // The merchant, its trust now (DESIGN 8.1), the decisions and their counters: one BatchGetItem.
  const { merchant, trust, decisions, counters } = await getBillingContext(ids, entityId);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  const billable = [...decisions.values()].filter((d) => d.merchantId === entityId && !billingRefusalFor('agreement', d));
  const unknown = billable.filter((d) => !customerOfDecision(d)).map((d) => d.customerId);
  const customers = unknown.length ? await getBillingCustomers(unknown) : new Map();

  return billPhrases('phrase', body.agreementPhrases, entityId, BILLING_MSG.created, folded, async (phrase, rider) => {
    const id = decisionIdOf.get(phrase);
    const decision = id ? decisions.get(id) : undefined;
    if (!decision || decision.merchantId !== entityId) return refusalElement('phrase', phrase, entityId, 'not_approved');
    const refusal = billingRefusalFor('agreement', decision);
    if (refusal) return refusalElement('phrase', phrase, entityId, refusal);
    const customer = customerOfDecision(decision) ?? customers.get(decision.customerId);
    if (!customer) return refusalElement('phrase', phrase, entityId, 'not_approved');
    const r = await createBilling({
      merchant,
      customer,
      decision,
      counter: counters.get(decision.id) ?? null,
      trust,
      amount: body.amount,
      currency: body.currency,
      description: body.description,
      type: 'agreement',
      idSeed: idSeedFor(headers, principal.keyId, 'bill', entityId, phrase),
      // The answer, should this attempt commit, is recorded under the key in the same transaction.
      rider,
    });
    return resultElement('phrase', phrase, entityId, r, BILLING_MSG.created);
  });
});
