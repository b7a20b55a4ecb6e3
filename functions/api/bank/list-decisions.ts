import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pageOfFew, pagingOf } from '../../http/paging';
import { decisionValueSchema, skipPaging } from '../../http/schemas';
import { decisionId, decisionRange, decisionSummary, getDecision, matching, decisionUsage, type DecisionItem } from '../../decisions/views';

const filterValue = z.string().min(1).max(100);

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  customerId: filterValue.optional(),
  entityId: filterValue.optional(),
  decision: decisionValueSchema.optional(),
  ...skipPaging,
});

const OF_YOURS = "one of your customers' decisions in this list";

/**
 * GET /v1/bank/customer-decisions?customerId=&entityId=&decision=&limit=&skip=|startingAfter=
 * (bank): the decisions of its customers, newest first, in the list shape of the merchant
 * read; `data` is the array, `hasMore` and (skip pages) `total` are top level. Filters
 * combine (AND).
 */
export const handler = endpoint({ query: querySchema }, async ({ query, principal }) => {
  const paging = pagingOf(query);
  const filter = { customerId: query.customerId, merchantId: query.entityId, decision: query.decision };
  const range = decisionRange({ bankId: principal.id }, filter);
  const cursor = (id: string) => getDecision(id);
  let page;
  if (query.customerId !== undefined && query.entityId !== undefined) {
    // The pair names the decision: one read.
    const d = await getDecision(decisionId(query.entityId, query.customerId));
    page = await pageOfFew(range, paging, matching(d && d.bankId === principal.id ? [d] : [], filter), cursor, OF_YOURS);
  } else {
    page = await listPage<DecisionItem>(range, paging, cursor, OF_YOURS);
  }
  // Each decision's `remaining` for the current periods (DESIGN 8.5) and lastUsed: one BatchGetItem for the page.
  const usage = await decisionUsage(page.items, clockNow());
  return ok(
    200,
    'Customer decisions retrieved',
    page.items.map((d) => ({ ...decisionSummary(d, usage.get(d.id)!.lastUsed), remaining: usage.get(d.id)!.remaining })),
    pageFields(page),
  );
});
