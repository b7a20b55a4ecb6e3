/**
 * The billing request item (it is also the transaction): shared by the billing flow
 * (bill, pay, bank response, expiry, recurring runs) and the money side (ledger,
 * settlement, balance, refunds, transaction reads). See docs/billing-design.md.
 */
export type BillingType = 'agreement' | 'one_time' | 'recurring';
export type BillingStatus = 'pending' | 'succeeded' | 'declined' | 'expired' | 'failed';
/** What transaction reads show: the billing status, or the refund state once refunded. */
export type TransactionStatus = BillingStatus | 'refunded' | 'partially_refunded';

export interface BillItem {
  pk: string; // BILL#<billingRequestId>
  sk: 'BILL';
  billingRequestId: string; // breq_…
  reference: string; // txn_…
  type: BillingType;
  status: BillingStatus;
  merchantId: string;
  merchantName: string;
  providerId?: string;
  bankId: string;
  customerId: string;
  /** Deterministic per (merchant, customer); also keys the limit counters. */
  decisionId: string;
  scheduleId?: string;
  /** Recurring run sequence number (with scheduleId). */
  runSeq?: number;
  /**
   * A recurring run's retry if this attempt fails (DESIGN 8.6), fixed when the run starts
   * (null: no retry left); `billing.response` shows it as willRetry / nextRetryAt.
   */
  runRetryAt?: string | null;
  /** Sandbox: the test clock the billing was created on (DESIGN 8.7); its answers run at the clock's time. */
  testClock?: string;
  amount: number; // minor units
  currency: string;
  description: string;
  requiresApproval: boolean;
  expiresAt?: string;
  bankTransactionId?: string;
  reason?: string;
  /** Lagos period keys the amount was reserved under (to release exactly what was reserved). */
  periods: { day: string; week: string; month: string };
  /** Counted in the decision's consent counters (DESIGN 8.5): a release gives them back. */
  consentCounted?: boolean;
  /** Minor units refunded (completed). */
  refundedAmount: number;
  /**
   * Minor units claimed against the amount: pending and completed refunds plus open and lost
   * disputes (THE refundable/disputable rule: bills/claims.ts).
   */
  refundReserved: number;
  /** Minor units of its disputes that are open or lost (DESIGN 9.4). */
  disputedAmount?: number;
  /** The status of its latest dispute (`latestDisputeId`); absent when never disputed. */
  disputeStatus?: 'needs_response' | 'under_review' | 'won' | 'lost';
  latestDisputeId?: string;
  /** Lagos date (yyyy-mm-dd) the captured funds settle on; set when succeeded. */
  settlementDate?: string;
  /** The settlement that paid it (set after that settlement commits; DESIGN 8.8). */
  settlementId?: string;
  createdAt: string;
  updatedAt: string;
  answeredAt?: string;
  [extra: string]: unknown;
}

export const billKey = (billingRequestId: string) => ({ pk: `BILL#${billingRequestId}`, sk: 'BILL' as const });
