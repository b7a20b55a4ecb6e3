import * as z from 'zod';
import { money } from '../shapes';

/** operator/trial-balance: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  accounts: z.array(
    z.object({
      account: z.string().describe('bank:<bankId>, merchant_unsettled:<merchantId> or merchant_settled:<merchantId>'),
      debit: money,
      credit: money,
    }),
  ),
  totalDebit: money,
  totalCredit: money,
  balanced: z.boolean(),
});
