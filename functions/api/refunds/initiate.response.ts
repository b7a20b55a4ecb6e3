import * as z from 'zod';
import { currency, iso, money } from '../shapes';

/** refunds/initiate: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  refundId: z.string(),
  reference: z.string(),
  amount: money,
  currency,
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  expectedBy: iso,
});
