import * as z from 'zod';

/** exports/create: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ exportId: z.string(), status: z.literal('pending') });
