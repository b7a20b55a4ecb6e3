import * as z from 'zod';
import { batchSummary, count } from '../shapes';

/** bank/get-batch: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  batchId: z.string(),
  status: z.enum(['COMPLETED', 'PROCESSING']),
  summary: batchSummary,
  data: z.object({ customerIds: z.array(z.string()), createdCount: count }),
  failures: z.array(z.object({ index: count, clientRef: z.string().nullable(), reason: z.string() })),
});
