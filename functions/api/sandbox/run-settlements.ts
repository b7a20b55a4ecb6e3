import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { toMajor } from '../../domain/money';
import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG } from '../../platform/errors';
import { LEDGER_CURRENCY } from '../../ledger/store';
import { settleDue } from '../../ledger/settlement';

/**
 * POST /v1/sandbox/settlements/run (merchant or provider with X-Entity-Id; sandbox only):
 * settles ALL the caller's pending funds now, future-dated settlement days included
 * (`settleDue(merchantId, now, {includeFuture: true})`, the settlement worker's own path:
 * ledger entry, balances, `settlement.completed`). Nothing pending: 200 with no settlements.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: 'Settle all your unsettled funds now, whatever their settlement date.' },
  async ({ principal }) => {
    const results = await settleDue(principal.id, clockNow(), { includeFuture: true });
    const amount = results.reduce((s, r) => s + r.amount, 0);
    return ok(200, SANDBOX_MSG.settlementsRun, {
      settlements: results.map((r) => ({
        settlementId: r.settlementId,
        settlementDate: r.settlementDate,
        amount: toMajor(r.amount),
        count: r.count,
      })),
      settledAmount: toMajor(amount),
      currency: LEDGER_CURRENCY,
    });
  },
);
