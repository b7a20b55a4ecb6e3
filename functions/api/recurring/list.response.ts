import * as z from 'zod';
import { hasMore, total, scheduleSummary } from '../shapes';

/** recurring/list: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ schedules: z.array(scheduleSummary), total, hasMore });
