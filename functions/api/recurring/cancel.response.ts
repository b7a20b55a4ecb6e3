import * as z from 'zod';
import { iso } from '../shapes';

/** recurring/cancel: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ scheduleId: z.string(), status: z.literal('cancelled'), cancelledAt: iso.nullable() });
