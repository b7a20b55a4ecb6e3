import * as z from 'zod';

/** account/remove-member: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ userId: z.string(), removed: z.literal(true) });
