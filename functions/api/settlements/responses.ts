/**
 * The 2xx answers of the settlements/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { SETTLEMENT_LINE_TYPES, SETTLEMENT_STATUSES } from '../../ledger/settlement-views';
import { count, currency, iso, money } from '../shapes';
import type { Responses } from '../shapes';

const settlement = z
  .object({
    settlementId: z.string(),
    businessDate: z.string().describe('The Nigerian business day settled (yyyy-mm-dd, Lagos)'),
    amount: money.describe('Moved to the settled balance: payments minus refunds (major units)'),
    currency,
    transactionCount: count.describe('Payment lines'),
    refundCount: count.describe('Refund lines'),
    status: z.enum(SETTLEMENT_STATUSES),
    settledAt: iso,
  })
  .meta({ id: 'Settlement' });

const settlementLine = z
  .object({
    reference: z.string().describe("The transaction's reference"),
    type: z
      .enum(SETTLEMENT_LINE_TYPES)
      .describe(
        'payment; refund; dispute (opened: the amount left the balance); dispute_reversal (won back); carried_forward (a negative net moved to the next settlement: this one pays 0); brought_forward (that negative net, in the next settlement)',
      ),
    amount: money.describe('Signed: refunds, disputes and a negative net brought forward are negative'),
  })
  .meta({ id: 'SettlementLine' });

export const RESPONSES = {
  get: {
    /** DESIGN 8.8 */
    data: settlement.extend({
      lines: z.array(settlementLine).describe('Payments, refunds, disputes and carried nets this settlement took; they sum to amount'),
      linesComplete: z.boolean().describe('False when the settlement has more than 10,000 lines (export it for all of them)'),
    }),
  },
  list: {
    /** DESIGN 8.8 */
    data: z.object({ settlements: z.array(settlement), hasMore: z.boolean() }),
  },
} satisfies Responses;
