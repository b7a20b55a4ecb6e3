import * as z from 'zod';
import { count, money } from '../shapes';

/** bank/settlement-report: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  businessDate: z.string().describe('The Lagos day reported (yyyy-mm-dd)'),
  debits: money.describe("Billings of the bank's customers that succeeded that day"),
  credits: money.describe('Refunds completed to them that day'),
  net: money.describe('debits − credits'),
  transactionCount: count,
  byMerchant: z.array(
    z.object({
      entityId: z.string(),
      merchantName: z.string(),
      amount: money.describe('Payments minus refunds'),
      count: count.describe('Payments'),
    }),
  ),
});
