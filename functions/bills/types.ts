/**
 * The billing request item (it is also the transaction): shared by the billing flow
 * (bill, pay, bank response, expiry, recurring runs) and the money side (ledger,
 * settlement, balance, refunds, transaction reads). See docs/billing-design.md.
 */
import { periodKeys, type PeriodKeys } from '../domain/lagos-time';
import type { CarriedEvent } from '../events/outbox';

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
  /**
   * Lagos period keys the amount was reserved under, on billings made before release 3; later
   * ones derive them from `createdAt` (`billPeriods`).
   */
  periods?: { day: string; week: string; month: string };
  /** Counted in the decision's consent counters (DESIGN 8.5): a release gives them back. */
  consentCounted?: boolean;
  /** Minor units refunded (completed). */
  refundedAmount: number;
  /**
   * Minor units claimed against the amount: pending and completed refunds plus open and lost
   * disputes (THE refundable/disputable rule: bills/claims.ts).
   */
  refundReserved: number;
  /** Its refunds' ids, added by each refund's initiation (absent on billings refunded before release 3: refunds/views.ts `refundsOf`). */
  refundIds?: Set<string>;
  /** Minor units of its disputes that are open or lost (DESIGN 9.4). */
  disputedAmount?: number;
  /** The status of its latest dispute (`latestDisputeId`); absent when never disputed. */
  disputeStatus?: 'needs_response' | 'under_review' | 'won' | 'lost';
  latestDisputeId?: string;
  /** Its disputes' ids, added by each dispute's opening (absent on billings disputed before: `latestDisputeId`). */
  disputeIds?: Set<string>;
  /** The events it caused, oldest first (events/outbox.ts `recordOn`; absent on billings made before). */
  eventIds?: string[];
  /**
   * The event its last write emitted, carried here instead of an event item of its own
   * (events/outbox.ts `carry`: `billing.request`, then `billing.response`); a later write that
   * emits nothing removes it (platform/definitions.ts `CARRIED_EVENT`).
   */
  emits?: CarriedEvent;
  /** Lagos date (yyyy-mm-dd) the captured funds settle on; set when succeeded. */
  settlementDate?: string;
  /** Captured since issue 50: its ledger entry is its settlement line (ledger/store.ts `captureEntryKey`). */
  entryInLine?: boolean;
  /** Captured in release 4 before issue 50: the partition of its ledger entry (`LEDGER#<m>#<n>`); neither: `LEDGER#<m>`. */
  ledgerPartition?: number;
  /**
   * The settlement that paid it, stamped on billings settled before release 3; since then the
   * settlement stamps its line only (the transaction reads it there: transactions/store.ts).
   */
  settlementId?: string;
  createdAt: string;
  updatedAt: string;
  answeredAt?: string;
  [extra: string]: unknown;
}

export const billKey = (billingRequestId: string) => ({ pk: `BILL#${billingRequestId}`, sk: 'BILL' as const });

/**
 * The Lagos periods a billing reserved its amount under: stored on billings made before
 * release 3, else those of its `createdAt` (the instant the reservation was made, on the test
 * clock's time when it has one).
 */
export const billPeriods = (b: Pick<BillItem, 'periods' | 'createdAt'>): PeriodKeys =>
  (b.periods as PeriodKeys | undefined) ?? periodKeys(new Date(b.createdAt));

/**
 * The transaction lists a billing is in (docs/decisions/write-cost.md, list-paging.md), all
 * sorted by `lsk` = `<createdAt>#<billingRequestId>` on keys-only indexes: gsi5 the
 * merchant's (`MTXN#<merchantId>`), gsi6 the bank's (`BTXN#<bankId>#<shard>`), gsi7 the
 * provider's (`PTXN#<providerId>#<shard>`). Billings made before release 3 are in gsi2 / gsi3 /
 * gsi4 (projection ALL, unsharded keys) and stay there; the lists read both.
 */
export const merchantTxnKey = (merchantId: string) => `MTXN#${merchantId}`;
export const bankTxnKey = (bankId: string) => `BTXN#${bankId}`;
export const providerTxnKey = (providerId: string) => `PTXN#${providerId}`;
