import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { skipPaging } from '../../http/schemas';
import { resolveLookupPhrase } from '../../customers/phrase-store';
import { decisionByAgreementPhrase, decisionId, decisionSummary, getDecision, merchantDecisions, pageOf, type DecisionItem } from '../../decisions/store';

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
  let candidates: DecisionItem[];
  // A filter that pins the decision reads one item instead of the merchant's whole list.
  if (query.agreementPhrase !== undefined) {
    // By the phrase's hash: read routes hold no key to decrypt it (least privilege). A
    // tampered phrase names nothing; another merchant's names a decision that is not ours.
    const d = await decisionByAgreementPhrase(query.agreementPhrase);
    candidates = d ? [d] : [];
  } else if (query.customerId !== undefined) {
    const d = await getDecision(decisionId(merchantId, query.customerId));
    candidates = d ? [d] : [];
  } else {
    candidates = await merchantDecisions(merchantId);
  }
  candidates = candidates.filter((d) => d.merchantId === merchantId);

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
