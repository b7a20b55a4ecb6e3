import * as z from 'zod';

/** merchant/email-lookup: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ banks: z.array(z.object({ bankId: z.string(), bankName: z.string(), lookupPhrase: z.string() })) });
