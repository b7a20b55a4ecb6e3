import * as z from 'zod';
import { count, currency, money } from '../shapes';

/** sandbox/run-settlements: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  settlements: z.array(z.object({ settlementId: z.string(), settlementDate: z.string(), amount: money, count })),
  settledAmount: money,
  currency,
});
