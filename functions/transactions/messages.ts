/**
 * Client-facing messages of the money endpoints (balance, refunds, transactions): DESIGN 6.5,
 * 6.9 "Not-found messages". Exact texts: acceptance tests compare them.
 */
export const MONEY_MSG = {
  balanceRetrieved: 'Balance retrieved',
  transactionsRetrieved: 'Transactions retrieved',
  transactionRetrieved: 'Transaction retrieved',
  transactionNotFound: 'Transaction not found',
  refundInitiated: 'Refund initiated',
  refundRetrieved: 'Refund retrieved',
  refundNotFound: 'Refund not found',
  refundExceeds: 'Refund exceeds refundable amount',
  /** The transaction is not (yet) succeeded: pending, declined, expired or failed. */
  notRefundable: 'Only a succeeded transaction can be refunded',
  /** Contention on one transaction outlasted the bounded retries; nothing was written. */
  refundBusy: 'Too many concurrent refunds for this transaction; retry shortly',
  // Reconciliation (DESIGN 8.8)
  settlementsRetrieved: 'Settlements retrieved',
  settlementRetrieved: 'Settlement retrieved',
  settlementNotFound: 'Settlement not found',
  exportAccepted: 'Export accepted',
  exportRetrieved: 'Export retrieved',
  exportNotFound: 'Export not found',
  settlementReportRetrieved: 'Settlement report retrieved',
  trialBalanceRetrieved: 'Trial balance retrieved',
} as const;
