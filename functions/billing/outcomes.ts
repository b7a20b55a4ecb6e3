/**
 * THE list of features that react to a billing's outcome (contract: functions/bills/outcome.ts),
 * dispatched by settleBilling. A new feature adds one entry here; nothing registers itself
 * at load.
 */
import { logger } from '../platform/log';
import { recurringBillingOutcome } from '../recurring/outcome';
import type { BillingOutcome, BillingOutcomeHandler } from '../bills/outcome';
import type { BillItem } from '../bills/types';
import type { TransactItem } from '../platform/table';

export const BILLING_OUTCOME_HANDLERS: readonly BillingOutcomeHandler[] = [recurringBillingOutcome];

/** The handlers' items for the outcome's own transaction. */
export async function outcomeHookItems(bill: BillItem, outcome: BillingOutcome, at: Date): Promise<TransactItem[]> {
  const lists = await Promise.all(BILLING_OUTCOME_HANDLERS.map((h) => h.items(bill, outcome, at)));
  return lists.flat();
}

/** The handlers' follow-up after the commit; an error is logged, never thrown. */
export async function runAfterSettledHooks(bill: BillItem, outcome: BillingOutcome, at: Date): Promise<void> {
  await Promise.all(
    BILLING_OUTCOME_HANDLERS.map(async (h) => {
      if (!h.after) return;
      try {
        await h.after(bill, outcome, at);
      } catch (error) {
        logger.warn('after-settled hook failed', { billingRequestId: bill.billingRequestId, feature: h.feature, error: error as Error });
      }
    }),
  );
}
