/**
 * Client-facing messages of the billing flow (spec Errors, DESIGN 6.5 and 6.9). Exact texts:
 * acceptance tests compare them.
 */
export const BILLING_MSG = {
  created: "Billing request sent to the customer's bank",
  paymentCreated: "Payment request sent to the customer's bank",
  notApproved: 'Customer has not approved billing',
  merchantBlocked: 'Merchant is blocked by the customer',
  limitsExceeded: "Billing exceeds the customer's spending limits",
  /** Consent terms (DESIGN 8.5). */
  approvalNotValid: 'Customer approval is not valid at this time',
  noPaymentsLeft: 'Customer approval has no payments left',
  customerNotFound: 'Customer not found',
  /** Contention on one customer that outlasted the bounded retries; nothing was written. */
  busy: 'Too many concurrent billings for this customer; retry shortly',
  /** A bank response that kept losing to concurrent writers; nothing was written. */
  settleBusy: 'Billing request is being updated concurrently; retry shortly',
  requestNotFound: 'Billing request not found',
  alreadyAnswered: 'Billing request has already been answered',
  expired: 'Billing request has expired',
  answered: 'Billing response recorded',
} as const;
