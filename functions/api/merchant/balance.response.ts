import * as z from 'zod';
import { currency, money } from '../shapes';

/** merchant/balance: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  totalBalance: money,
  unsettledBalance: money,
  settledBalance: money,
  currency,
  bankAccountInfo: z.object({ bankName: z.string().nullable(), accountNumber: z.string().nullable(), accountName: z.string().nullable() }),
  withdrawalInfo: z.object({ isSupported: z.boolean(), minimumAmount: money, maximumAmount: money }),
  nextSettlement: z.object({ amount: money, currency, date: z.string() }).nullable(),
});
