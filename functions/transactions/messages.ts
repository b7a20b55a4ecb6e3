import { messages } from '../platform/errors';

/**
 * Client-facing messages of the money endpoints (balance, refunds, transactions): DESIGN 6.5,
 * 6.9 "Not-found messages", each error with its status and code (platform/errors.ts
 * `messages`). Exact texts: acceptance tests compare them.
 */
export const MONEY_MSG = messages({
  balanceRetrieved: 'Balance retrieved',
  transactionsRetrieved: 'Transactions retrieved',
  transactionRetrieved: 'Transaction retrieved',
  transactionNotFound: [404, 'transaction_not_found', 'Transaction not found'],
  refundInitiated: 'Refund initiated',
  refundRetrieved: 'Refund retrieved',
  refundNotFound: [404, 'refund_not_found', 'Refund not found'],
  refundExceeds: [400, 'refund_exceeds_refundable', 'Refund exceeds refundable amount', { param: 'amount' }],
  /** The transaction is not (yet) succeeded: pending, declined, expired or failed. */
  notRefundable: [409, 'transaction_not_refundable', 'Only a succeeded transaction can be refunded'],
  /** Contention on one transaction outlasted the bounded retries; nothing was written. */
  refundBusy: [409, 'refund_contention', 'Too many concurrent refunds for this transaction; retry shortly', { retry: true }],
  /** The bank answered a refund that already ended (`completed` or `failed`). */
  refundFinished: [409, 'refund_finished', 'Refund is already {status}'],
  // Reconciliation (DESIGN 8.8)
  settlementsRetrieved: 'Settlements retrieved',
  settlementRetrieved: 'Settlement retrieved',
  settlementNotFound: [404, 'settlement_not_found', 'Settlement not found'],
  exportAccepted: 'Export accepted',
  exportRetrieved: 'Export retrieved',
  exportNotFound: [404, 'export_not_found', 'Export not found'],
  settlementReportRetrieved: 'Settlement report retrieved',
  trialBalanceRetrieved: 'Trial balance retrieved',
});
