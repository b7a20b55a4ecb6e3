/**
 * The contract between billing and the features that react to a billing's outcome (the list
 * of handlers is functions/billing/outcomes.ts). It lives in bills/, below both: billing
 * imports the handlers, and a feature with a handler imports this contract, never billing.
 *
 * `items`: transaction items committed in the SAME transaction as the outcome (the recurring
 * feature: a run's billing succeeded -> `totalBillings` + 1; declined, expired or failed ->
 * `failedAttempts` + 1, next run, completion). A handler returns none for billings it does
 * not own (e.g. `bill.scheduleId === undefined`). Its items are committed with the status
 * change, the ledger or limit items and the `billing.response` event, so they happen
 * exactly once: exactly when the billing leaves `pending`. A handler must NOT add
 * conditions that can fail for reasons of its own (a failed condition cancels the outcome
 * itself), nor touch the billing item (one item per transaction).
 *
 * `after`: runs AFTER the outcome is committed (settleBilling), for follow-up work that
 * needs its own transaction or events (the recurring feature finishes the run: next date,
 * completion, `schedule.completed`). Best effort: an error is logged, never thrown to the
 * caller (the outcome is committed already); a feature that must not lose the follow-up
 * records what is left to do in its `items` (the recurring schedule is made due, so the
 * tick finishes the run if this step is lost).
 */
import type { BillItem } from './types';
import type { TransactItem } from '../platform/table';

export type BankAction = 'approve_once' | 'approve_recurring' | 'deny' | 'suspended';

/** Why the bank (not the customer) declined a billing (bank-response `declineReason`, DESIGN 8.6). */
export const BANK_DECLINE_REASONS = ['insufficient_funds', 'account_unavailable', 'bank_declined'] as const;
export type BankDeclineReason = (typeof BANK_DECLINE_REASONS)[number];

export type BillingOutcome =
  | { status: 'succeeded'; action: 'approve_once' | 'approve_recurring'; bankTransactionId: string }
  | { status: 'declined'; action: 'deny' | 'suspended'; bankTransactionId?: string; declineReason?: BankDeclineReason }
  | { status: 'expired' }
  | { status: 'failed'; reason: string };

export interface BillingOutcomeHandler {
  /** The feature that owns the handler (for logs). */
  feature: string;
  items(bill: BillItem, outcome: BillingOutcome, at: Date): TransactItem[] | Promise<TransactItem[]>;
  after?(bill: BillItem, outcome: BillingOutcome, at: Date): Promise<void>;
}

/** `reason` of `billing.response` for each refusal. */
export function billingOutcomeReason(outcome: BillingOutcome): string | undefined {
  switch (outcome.status) {
    case 'succeeded':
      return undefined;
    case 'declined':
      return outcome.declineReason ?? (outcome.action === 'deny' ? 'customer_denied' : 'customer_suspended');
    case 'expired':
      return 'approval_expired';
    case 'failed':
      return outcome.reason;
  }
}

/** The billing's refusals by the customer: a recurring run refused so is never retried (DESIGN 8.6). */
export const isCustomerRefusal = (reason: string | undefined): boolean => reason === 'customer_denied' || reason === 'customer_suspended';
