import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { canSee, findBillByReference, transactionOf } from '../../transactions/store';
import { MONEY_MSG } from '../../transactions/messages';
import { refundsOf, refundView } from '../../refunds/views';
import { disputesOf } from '../../disputes/views';
import { eventsCausedBy } from '../../events/views';
import { customerNames } from '../../customers/views';

const query = z.object({ reference: z.string().trim().min(1).max(100) });

/**
 * GET /v1/transaction-details?reference= -> one transaction with its refunds and the caller's
 * events of it, its refunds and its disputes (with the caller's deliveries). Unknown, or not
 * visible to the caller (another merchant's, bank's or provider's): 404 `Transaction not found`.
 */
export const handler = endpoint({ query, description: 'One transaction by its reference.' }, async ({ query, principal, apiVersion }) => {
  const bill = await findBillByReference(query.reference);
  if (!bill || !canSee(principal, bill)) throw notFound(MONEY_MSG.transactionNotFound);
  const [transaction, refunds, disputes, customers] = await Promise.all([
    transactionOf(bill),
    refundsOf(bill),
    disputesOf(bill),
    customerNames([bill.customerId]),
  ]);
  const events = await eventsCausedBy(principal.id, [bill, ...refunds, ...disputes], apiVersion);
  return ok(200, MONEY_MSG.transactionRetrieved, {
    ...transaction,
    customer: customers.get(bill.customerId) ?? null,
    refunds: refunds.map(refundView),
    events,
  });
});
