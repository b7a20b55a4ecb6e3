/**
 * The recurring feature's billing outcome handler (listed in functions/billing/outcomes.ts, so
 * run by every path that settles billings: bank-response, the expiry worker, the sandbox
 * expire route, the recurring worker's answer deadline).
 *
 *  - In the outcome's transaction: `recordOutcomeItem` (totalBillings + 1 when the run's
 *    billing succeeded; failedAttempts + 1 when it was declined, expired or failed; the
 *    outcome of the run in flight; the schedule due now). Unconditional, as hooks must be.
 *  - After the commit: `finishRun` (next date or retry, active again or completed with
 *    `schedule.completed`). If this step is lost, the tick finishes the run (the schedule
 *    was made due in the outcome's transaction).
 */
import type { BillingOutcomeHandler } from '../bills/outcome';
import { logger } from '../platform/log';
import type { BillItem } from '../bills/types';
import { finishRun, recordOutcomeItem } from './run-store';

const isRunBilling = (bill: BillItem): boolean =>
  bill.type === 'recurring' && typeof bill.scheduleId === 'string' && typeof bill.runSeq === 'number';

export const recurringBillingOutcome: BillingOutcomeHandler = {
  feature: 'recurring',
  items: (bill, outcome, at) => (isRunBilling(bill) ? [recordOutcomeItem(bill, outcome, at)] : []),
  async after(bill, _outcome, at) {
    if (!isRunBilling(bill)) return;
    const r = await finishRun(bill.scheduleId!, at);
    if (r.ok) logger.info('recurring run finished', { scheduleId: bill.scheduleId, runSeq: bill.runSeq, status: r.schedule.status });
  },
};
