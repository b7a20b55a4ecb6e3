import * as z from 'zod';

/** sandbox/delete-test-clock: `data` of the 2xx answer (DESIGN 8.7; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ clockId: z.string(), deleted: z.literal(true) });
