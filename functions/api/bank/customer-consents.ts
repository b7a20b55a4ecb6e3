import * as z from 'zod';
import { clockNow } from '../../platform/clock';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pagingOf } from '../../http/paging';
import { cursorPaging } from '../../http/schemas';
import { MSG, notFound } from '../../platform/errors';
import { getBankCustomer } from '../../customers/views';
import { participantNames } from '../../identity/participant-store';
import { decisionUsage, getDecision, limitsToMajor, standingConsentRange, type DecisionItem } from '../../decisions/views';
import { customerSchedules } from '../../recurring/views';

const querySchema = z.strictObject({ ...cursorPaging });

/**
 * GET /v1/bank/customers/{customerId}/consents (bank; DESIGN 10.5): every standing consent of
 * the bank's customer across merchants, newest first, each with its schedules and what the
 * next bill may still take under each limit now. Read from the decisions, their counters (the
 * ones the billing path checks: `decisionUsage`) and the schedules: nothing is written.
 */
export const handler = endpoint(
  {
    query: querySchema,
    description:
      "Every standing consent of the bank's customer across merchants (each decision that lets a merchant bill now or later), newest first, with its schedules and what is left of each limit now.",
  },
  async ({ query, params, principal }) => {
    const customerId = params.customerId!;
    if (!(await getBankCustomer(principal.id, customerId))) throw notFound(MSG.customerNotFound);
    const now = clockNow();
    const range = standingConsentRange(principal.id, customerId, now);
    const page = await listPage<DecisionItem>(range, pagingOf(query), (id) => getDecision(id), "one of this customer's consents");
    const [usage, names, schedules] = await Promise.all([
      decisionUsage(page.items, now),
      participantNames(page.items.map((d) => d.merchantId)),
      page.items.length ? customerSchedules(principal.id, customerId) : Promise.resolve([]),
    ]);
    const consents = page.items.map((d) => ({
      decisionId: d.id,
      merchant: { id: d.merchantId, name: names.get(d.merchantId) ?? null },
      decision: d.decision,
      spendingLimits: limitsToMajor(d.spendingLimits),
      maxPayments: d.maxPayments ?? null,
      validFrom: d.validFrom ?? null,
      validTo: d.validTo ?? null,
      schedules: schedules.filter((s) => s.decisionId === d.id).map(({ decisionId: _, ...s }) => s),
      remaining: usage.get(d.id)!.remaining,
    }));
    return ok(200, 'Customer consents retrieved', { consents, hasMore: page.hasMore });
  },
);
