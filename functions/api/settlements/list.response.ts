import * as z from 'zod';
import { settlement } from './shapes';

/** settlements/list: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ settlements: z.array(settlement), hasMore: z.boolean() });
