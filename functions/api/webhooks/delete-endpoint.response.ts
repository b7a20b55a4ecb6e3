import * as z from 'zod';

/** webhooks/delete-endpoint: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ id: z.string(), deleted: z.literal(true) });
