import * as z from 'zod';

/** operator/create-key: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ keyId: z.string(), participantId: z.string(), apiKey: z.string().describe('Shown only here') });
