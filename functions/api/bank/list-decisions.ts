import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { skipPaging } from '../../http/schemas';
import { bankDecisions, decisionId, decisionSummary, getDecision, pageOf, remainingFor, type DecisionItem } from '../../decisions/store';
import { decisionValueSchema } from './intent-response';

const filterValue = z.string().min(1).max(100);

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  customerId: filterValue.optional(),
  entityId: filterValue.optional(),
  decision: decisionValueSchema.optional(),
  ...skipPaging,
});

/**
 * GET /v1/bank/customer-decisions?customerId=&entityId=&decision=&limit=&skip= (bank): the
 * decisions of its customers, newest first, in the list shape of the merchant read; `data` is
 * the array and `total` (top level) counts every match. Filters combine (AND).
 */
export const handler = endpoint({ query: querySchema }, async ({ query, principal }) => {
  let candidates: DecisionItem[];
  if (query.customerId !== undefined && query.entityId !== undefined) {
    // The pair names the decision: one read.
    const d = await getDecision(decisionId(query.entityId, query.customerId));
    candidates = d ? [d] : [];
  } else {
    candidates = await bankDecisions(principal.id);
  }
  const own = candidates.filter((d) => d.bankId === principal.id);
  const page = pageOf(own, { customerId: query.customerId, merchantId: query.entityId, decision: query.decision }, query.skip, query.limit);
  // Each decision's `remaining` for the current periods (DESIGN 8.5): one BatchGetItem for the page.
  const remaining = await remainingFor(page.items, clockNow());
  return ok(200, 'Customer decisions retrieved', page.items.map((d) => ({ ...decisionSummary(d), remaining: remaining.get(d.id)! })), { total: page.total });
});
