import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { toMajor } from '../../domain/money';
import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG } from '../../platform/errors';
import { LEDGER_CURRENCY } from '../../ledger/store';
import { runSettlements } from '../../sandbox/settlement-run';

/**
 * POST /v1/sandbox/settlements/run (merchant or provider with X-Entity-Id; sandbox only):
 * settles the caller's pending funds now, future-dated settlement days included, through the
 * settlement worker's own path (functions/sandbox/settlement-run.ts). Answers once, within a
 * few seconds, with every settlement of the days it found pending (its own, or a concurrent
 * run's); `remainingAmount` is what is still unsettled (a large backlog: call again). Nothing
 * pending: 200 with no settlements. Never 5xx for work it did: a replay with the same
 * Idempotency-Key returns this answer.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: 'Settle all your unsettled funds now, whatever their settlement date.' },
  async ({ principal }) => {
    const run = await runSettlements(principal.id, clockNow());
    const amount = run.settlements.reduce((s, r) => s + r.amount, 0);
    return ok(200, SANDBOX_MSG.settlementsRun, {
      settlements: run.settlements.map((r) => ({
        settlementId: r.settlementId,
        settlementDate: r.businessDate,
        amount: toMajor(r.amount),
        count: r.transactionCount,
      })),
      settledAmount: toMajor(amount),
      remainingAmount: toMajor(run.remaining),
      currency: LEDGER_CURRENCY,
    });
  },
);
