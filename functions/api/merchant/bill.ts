import { readAgreementPhrase } from '../../domain/agreement-phrase';
import {
  assertSupportedCurrency,
  billBodySchema,
  createdElement,
  idSeedFor,
  perPhrase,
  refusalElement,
  resultElement,
} from '../../billing/bill-request';
import { createBilling } from '../../billing/create-billing';
import { billingRefusalFor } from '../../domain/decisions';
import { BILLING_MSG } from '../../billing/messages';
import { customerOfDecision, getBillingContext, getBillingCustomers } from '../../bills/reads';
import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { arrayReply } from '../../http/multi-status';
import { cancellationCodes, isTransactionCancelled } from '../../platform/table';

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
  const distinct = [...new Set(body.agreementPhrases)];
  // Several phrases are several transactions: the key is claimed before any of them.
  const folded = idempotency !== undefined && distinct.length === 1 ? idempotency : undefined;
  if (idempotency && !folded) {
    const replay = await idempotency.claim();
    if (replay) return { status: replay.statusCode, body: replay.body, headers: replay.headers };
  }

  const decisionIdOf = new Map<string, string | undefined>();
  await Promise.all(distinct.map(async (p) => decisionIdOf.set(p, await readAgreementPhrase(p, entityId))));
  const ids = [...new Set([...decisionIdOf.values()].filter((v): v is string => v !== undefined))];
  // The merchant, its trust now (DESIGN 8.1), the decisions and their counters: one BatchGetItem.
  const { merchant, trust, decisions, counters } = await getBillingContext(ids, entityId);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  const billable = [...decisions.values()].filter((d) => d.merchantId === entityId && !billingRefusalFor('agreement', d));
  const unknown = billable.filter((d) => !customerOfDecision(d)).map((d) => d.customerId);
  const customers = unknown.length ? await getBillingCustomers(unknown) : new Map();

  const elements = await perPhrase(
    'phrase',
    body.agreementPhrases,
    entityId,
    async (phrase) => {
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
        ...(folded
          ? {
              extraItems: async (bill) => [
                await folded.record(
                  arrayReply(body.agreementPhrases.map(() => createdElement('phrase', phrase, bill, BILLING_MSG.created))),
                ),
              ],
            }
          : {}),
      });
      if (folded && r.ok && !r.existing) folded.recorded();
      return resultElement('phrase', phrase, entityId, r, BILLING_MSG.created);
    },
    // The key's record already exists (a retry, a concurrent duplicate): its answer, not a 500.
    (e) => folded !== undefined && isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed',
  ).catch(async (e) => {
    if (folded && isTransactionCancelled(e)) return folded.existing();
    throw e;
  });
  return arrayReply(elements);
});
