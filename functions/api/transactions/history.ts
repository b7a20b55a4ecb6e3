import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { queryInstant, skipPaging } from '../../http/schemas';
import { billNamed, toTransactions, TRANSACTION_STATUSES, transactionRange, transactionScope } from '../../transactions/store';
import type { BillItem } from '../../bills/types';
import { MONEY_MSG } from '../../transactions/messages';
import { customerNames } from '../../customers/views';

const query = z
  .object({
    status: z.enum(TRANSACTION_STATUSES).optional(),
    /** Only this customer's transactions. */
    customerId: z.string().trim().min(1).max(100).optional(),
    /** Inclusive bounds on createdAt, ISO 8601 date-times (any offset), 2000 to 2099. */
    from: queryInstant.optional(),
    to: queryInstant.optional(),
    ...skipPaging,
  })
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) <= Date.parse(q.to), {
    message: 'from must not be after to',
    path: ['from'],
  });

/**
 * GET /v1/transaction-history?status=&customerId=&from=&to=&limit=&skip=|startingAfter= ->
 * `{transactions[], total, hasMore}` (`total` on skip pages only), newest first. Merchants
 * (and providers with X-Entity-Id) see their own; providers without the header all their
 * merchants'; banks their customers'. `startingAfter`: a billingRequestId or reference of
 * the caller's list.
 */
export const handler = endpoint(
  { query, description: 'Transactions visible to the caller, newest first, filtered by status and createdAt range.' },
  async ({ query, principal }) => {
    const paging = pagingOf(query);
    const range = transactionRange(transactionScope(principal), {
      status: query.status,
      customerId: query.customerId,
      from: query.from !== undefined ? new Date(query.from) : undefined,
      to: query.to !== undefined ? new Date(query.to) : undefined,
    });
    const page = await listPage<BillItem>(range, paging, billNamed, 'one of your transactions');
    // The customers' names and e-mails beside their ids (DESIGN 10.7): one BatchGetItem for the page.
    const [transactions, customers] = await Promise.all([toTransactions(page.items), customerNames(page.items.map((b) => b.customerId))]);
    return ok(200, MONEY_MSG.transactionsRetrieved, {
      transactions: transactions.map((t) => ({ ...t, customer: customers.get(t.customerId) ?? null })),
      ...pageFields(page),
    });
  },
);
