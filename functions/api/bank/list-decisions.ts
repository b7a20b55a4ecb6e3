import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pageOfFew, pagingOf } from '../../http/paging';
import { decisionValueSchema, skipPaging } from '../../http/schemas';
import { isDecisionIdShaped } from '../../domain/decisions';
import { customerNames } from '../../customers/views';
import { participantNames } from '../../identity/participant-store';
import { decisionId, decisionRange, decisionSummary, getDecision, matching, decisionUsage, type DecisionItem } from '../../decisions/views';

const filterValue = z.string().min(1).max(100);

/** Unknown parameters are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  /** One decision by its id (its page in the dashboard): one read. */
  id: filterValue.optional(),
  customerId: filterValue.optional(),
  entityId: filterValue.optional(),
  decision: decisionValueSchema.optional(),
  ...skipPaging,
});

const OF_YOURS = "one of your customers' decisions in this list";

/**
 * GET /v1/bank/customer-decisions?id=&customerId=&entityId=&decision=&limit=&skip=|startingAfter=
 * (bank): the decisions of its customers, newest first, in the list shape of the merchant
 * read, with each customer's name and e-mail and the merchant's name; `data` is the array,
 * `hasMore` and (skip pages) `total` are top level. Filters combine (AND).
 */
export const handler = endpoint({ query: querySchema }, async ({ query, principal }) => {
  const paging = pagingOf(query);
  const filter = { customerId: query.customerId, merchantId: query.entityId, decision: query.decision };
  const range = decisionRange({ bankId: principal.id }, filter);
  const cursor = (id: string) => getDecision(id);
  let page;
  const named =
    query.id ?? (query.customerId !== undefined && query.entityId !== undefined ? decisionId(query.entityId, query.customerId) : undefined);
  if (named !== undefined) {
    // An id, or the pair that names the decision: one read.
    const d = isDecisionIdShaped(named) ? await getDecision(named) : undefined;
    page = await pageOfFew(range, paging, matching(d && d.bankId === principal.id ? [d] : [], filter), cursor, OF_YOURS);
  } else {
    page = await listPage<DecisionItem>(range, paging, cursor, OF_YOURS);
  }
  // Each decision's `remaining` for the current periods (DESIGN 8.5) and lastUsed: one BatchGetItem for the page;
  // the customers' names and e-mails and the merchants' names beside their ids (DESIGN 9.7): one each.
  const [usage, customers, merchants] = await Promise.all([
    decisionUsage(page.items, clockNow()),
    customerNames(page.items.map((d) => d.customerId)),
    participantNames(page.items.map((d) => d.merchantId)),
  ]);
  return ok(
    200,
    'Customer decisions retrieved',
    page.items.map((d) => ({
      ...decisionSummary(d, usage.get(d.id)!.lastUsed),
      remaining: usage.get(d.id)!.remaining,
      customer: customers.get(d.customerId) ?? null,
      merchantName: merchants.get(d.merchantId) ?? null,
    })),
    pageFields(page),
  );
});
