import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pageOfFew, pagingOf } from '../../http/paging';
import { skipPaging } from '../../http/schemas';
import { resolveLookupPhrase } from '../../customers/phrase-store';
import {
  decisionByAgreementPhrase,
  decisionId,
  decisionRange,
  decisionSummary,
  lastUsedOf,
  getDecision,
  matching,
  type DecisionItem,
} from '../../decisions/views';

const filterValue = z.string().min(1).max(1000);

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  agreementPhrase: filterValue.optional(),
  customerId: filterValue.optional(),
  lookupPhrase: filterValue.optional(),
  ...skipPaging,
});

const OF_YOURS = 'one of your decisions';

/**
 * GET /v1/merchant/customer-decisions?agreementPhrase=&customerId=&lookupPhrase=&limit=&skip=|startingAfter=
 * (merchant): its own decisions, newest first; `data` is the array, `hasMore` and (skip
 * pages) `total` are top level. Filters combine (AND):
 * - agreementPhrase: the decision it names (a tampered or another merchant's phrase names none);
 * - customerId: that customer's decision;
 * - lookupPhrase: the decision of the customer the phrase names for this merchant, or whose
 *   latest answered intent used that phrase.
 */
export const handler = endpoint({ query: querySchema }, async ({ query, principal }) => {
  const merchantId = principal.id;
  const paging = pagingOf(query);
  let phrase: { customerId?: string; lookupPhrase: string } | undefined;
  if (query.lookupPhrase !== undefined) {
    const named = await resolveLookupPhrase(query.lookupPhrase, merchantId);
    phrase = { lookupPhrase: query.lookupPhrase, ...(named ? { customerId: named.customer.id } : {}) };
  }
  const range = decisionRange({ merchantId }, {}, phrase);
  const cursor = (id: string) => getDecision(id);
  let page;
  // A filter that pins the decision reads one item instead of a page of the merchant's list.
  if (query.agreementPhrase !== undefined || query.customerId !== undefined) {
    // By the phrase's hash: read routes hold no key to decrypt it (least privilege). A
    // tampered phrase names nothing; another merchant's names a decision that is not ours.
    const d = query.agreementPhrase !== undefined ? await decisionByAgreementPhrase(query.agreementPhrase) : undefined;
    const byCustomer = query.customerId !== undefined ? await getDecision(decisionId(merchantId, query.customerId)) : undefined;
    let candidates = (query.agreementPhrase !== undefined ? [d] : [byCustomer]).filter(
      (x): x is DecisionItem => x !== undefined && x.merchantId === merchantId,
    );
    candidates = matching(candidates, { merchantId, customerId: query.customerId });
    if (phrase) candidates = candidates.filter((c) => c.customerId === phrase.customerId || c.lookupPhrase === phrase.lookupPhrase);
    page = await pageOfFew(range, paging, candidates, cursor, OF_YOURS);
  } else {
    page = await listPage<DecisionItem>(range, paging, cursor, OF_YOURS);
  }
  const lastUsed = await lastUsedOf(page.items);
  return ok(
    200,
    'Customer decisions retrieved',
    page.items.map((d) => decisionSummary(d, lastUsed.get(d.id) ?? null)),
    pageFields(page),
  );
});
