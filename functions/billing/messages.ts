import { MSG, messages } from '../platform/errors';

/**
 * Client-facing messages of the billing flow (spec Errors, DESIGN 6.5 and 6.9), each error
 * with its status and code (platform/errors.ts `messages`). Exact texts: acceptance tests
 * compare them.
 */
export const BILLING_MSG = messages({
  created: "Billing request sent to the customer's bank",
  paymentCreated: "Payment request sent to the customer's bank",
  notApproved: [403, 'billing_not_approved', 'Customer has not approved billing'],
  merchantBlocked: [403, 'merchant_blocked', 'Merchant is blocked by the customer'],
  limitsExceeded: [403, 'spending_limit_exceeded', "Billing exceeds the customer's spending limits", { param: 'amount' }],
  /** Consent terms (DESIGN 8.5). */
  approvalNotValid: [403, 'approval_not_valid', 'Customer approval is not valid at this time'],
  noPaymentsLeft: [403, 'approval_no_payments_left', 'Customer approval has no payments left'],
  customerNotFound: MSG.customerNotFound,
  /** Contention on one customer that outlasted the bounded retries; nothing was written. */
  busy: [409, 'billing_contention', 'Too many concurrent billings for this customer; retry shortly', { retry: true }],
  /** A bank response that kept losing to concurrent writers; nothing was written. */
  settleBusy: [409, 'billing_request_contention', 'Billing request is being updated concurrently; retry shortly', { retry: true }],
  requestNotFound: [404, 'billing_request_not_found', 'Billing request not found'],
  alreadyAnswered: [409, 'billing_already_answered', 'Billing request has already been answered'],
  expired: [409, 'billing_expired', 'Billing request has expired'],
  answered: 'Billing response recorded',
});
