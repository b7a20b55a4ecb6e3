import * as z from 'zod';
import { hasMore, total, transaction } from '../shapes';

/** transactions/history: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ transactions: z.array(transaction), total, hasMore });
