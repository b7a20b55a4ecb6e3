import * as z from 'zod';
import { TRANSACTION_STATUSES } from '../../transactions/store';

/** sandbox/expire-billing: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  billingRequestId: z.string(),
  reference: z.string(),
  status: z.enum(TRANSACTION_STATUSES),
  reason: z.string(),
});
