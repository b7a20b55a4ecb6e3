import * as z from 'zod';
import { SETTLEMENT_STATUSES } from '../../ledger/settlement-views';
import { count, currency, iso, money } from '../shapes';

export const settlement = z
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

export const settlementLine = z
  .object({
    reference: z.string().describe("The transaction's reference"),
    type: z.enum(['payment', 'refund']),
    amount: money.describe('Signed: a refund is negative'),
  })
  .meta({ id: 'SettlementLine' });
