import * as z from 'zod';
import { readAgreementPhrase } from '../../domain/agreement-phrase';
import { endpoint, ok } from '../../http/endpoint';
import { skipPaging } from '../../http/schemas';
import { resolveLookupPhrase } from '../../store/customers';
import { decisionId, decisionSummary, getDecision, merchantDecisions, pageOf, type DecisionItem } from '../../store/decisions';

const filterValue = z.string().min(1).max(1000);

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  agreementPhrase: filterValue.optional(),
  customerId: filterValue.optional(),
  lookupPhrase: filterValue.optional(),
  ...skipPaging,
});

/**
 * GET /v1/merchant/customer-decisions?agreementPhrase=&customerId=&lookupPhrase=&limit=&skip=
 * (merchant): its own decisions, newest first; `data` is the array, `total` (top level) counts
 * every match. Filters combine (AND):
 * - agreementPhrase: the decision it names (a tampered or another merchant's phrase names none);
 * - customerId: that customer's decision;
 * - lookupPhrase: the decision of the customer the phrase names for this merchant, or whose
 *   latest answered intent used that phrase.
 */
export const handler = endpoint({ query: querySchema }, async ({ query, principal }) => {
  const merchantId = principal.id;
  let candidates: DecisionItem[] | undefined;
  // A filter that pins the decision id reads one item instead of the merchant's whole list.
  const pinned = new Set<string>();
  if (query.agreementPhrase !== undefined) {
    const id = await readAgreementPhrase(query.agreementPhrase, merchantId);
    if (!id) return ok(200, 'Customer decisions retrieved', [], { total: 0 });
    pinned.add(id);
  }
  if (query.customerId !== undefined) pinned.add(decisionId(merchantId, query.customerId));
  if (pinned.size > 1) return ok(200, 'Customer decisions retrieved', [], { total: 0 });
  if (pinned.size === 1) {
    const d = await getDecision([...pinned][0]!);
    candidates = d && d.merchantId === merchantId ? [d] : [];
  } else {
    candidates = await merchantDecisions(merchantId);
  }

  let byPhrase: ((d: DecisionItem) => boolean) | undefined;
  if (query.lookupPhrase !== undefined) {
    const phrase = query.lookupPhrase;
    const named = await resolveLookupPhrase(phrase, merchantId);
    const customerId = named?.customer.id;
    byPhrase = (d) => d.customerId === customerId || d.lookupPhrase === phrase;
  }
  const filtered = byPhrase ? candidates.filter(byPhrase) : candidates;
  const page = pageOf(filtered, { merchantId, customerId: query.customerId }, query.skip, query.limit);
  return ok(200, 'Customer decisions retrieved', page.items.map(decisionSummary), { total: page.total });
});
