/**
 * Hook point for features that react to a billing's outcome in the SAME transaction as the
 * outcome (the recurring feature: a run's billing succeeded -> `totalBillings` + 1; declined,
 * expired or failed -> `failedAttempts` + 1, next run, completion).
 *
 * A hook returns transaction items (and may return none for billings it does not own, e.g.
 * `bill.scheduleId === undefined`). Its items are committed with the status change, the
 * ledger or limit items and the `billing.response` event, so they happen exactly once:
 * exactly when the billing leaves `pending`. A hook must NOT add conditions that can fail
 * for reasons of its own (a failed condition cancels the outcome itself), nor touch the
 * billing item (one item per transaction).
 *
 * Registration: a module calls `onBillingSettled(fn)` at load; it must be loaded by every
 * entry point that settles billings, so add ONE import line to `functions/billing/hooks.ts`
 * (imported by the bank-response handler, the expiry worker and the sandbox expire route).
 */
import { logger } from '../http/log';
import type { BillItem } from '../store/billing-types';
import type { TransactItem } from '../store/table';

export type BankAction = 'approve_once' | 'approve_recurring' | 'deny' | 'suspended';

export type BillingOutcome =
  | { status: 'succeeded'; action: 'approve_once' | 'approve_recurring'; bankTransactionId: string }
  | { status: 'declined'; action: 'deny' | 'suspended'; bankTransactionId?: string }
  | { status: 'expired' }
  | { status: 'failed'; reason: string };

export type OutcomeHook = (bill: BillItem, outcome: BillingOutcome, at: Date) => TransactItem[] | Promise<TransactItem[]>;

const hooks: OutcomeHook[] = [];

export function onBillingSettled(hook: OutcomeHook): void {
  if (!hooks.includes(hook)) hooks.push(hook);
}

export async function outcomeHookItems(bill: BillItem, outcome: BillingOutcome, at: Date): Promise<TransactItem[]> {
  const lists = await Promise.all(hooks.map((h) => h(bill, outcome, at)));
  return lists.flat();
}

/**
 * Hooks that run AFTER a billing's outcome is committed (settleBilling), for follow-up work
 * that needs its own transaction or events (the recurring feature finishes the run: next
 * date, completion, `schedule.completed`). Best effort: an error is logged, never thrown to
 * the caller (the outcome is committed already); a feature that must not lose the
 * follow-up records what is left to do in its in-transaction hook items (the recurring
 * schedule is made due, so the tick finishes the run if this step is lost).
 */
export type AfterSettledHook = (bill: BillItem, outcome: BillingOutcome, at: Date) => Promise<void>;

const afterHooks: AfterSettledHook[] = [];

export function afterBillingSettled(hook: AfterSettledHook): void {
  if (!afterHooks.includes(hook)) afterHooks.push(hook);
}

export async function runAfterSettledHooks(bill: BillItem, outcome: BillingOutcome, at: Date): Promise<void> {
  await Promise.all(
    afterHooks.map(async (h) => {
      try {
        await h(bill, outcome, at);
      } catch (error) {
        logger.warn('after-settled hook failed', { billingRequestId: bill.billingRequestId, error: error as Error });
      }
    }),
  );
}
