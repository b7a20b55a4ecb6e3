import * as z from 'zod';

/** operator/create-participant: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  id: z.string(),
  type: z.enum(['bank', 'merchant', 'provider']),
  name: z.string(),
  email: z.string(),
  providerId: z.string().optional(),
  simulated: z.literal(true).optional(),
  apiKey: z.string().describe('Shown only here'),
  invitation: z
    .object({ invitationId: z.string(), token: z.string().describe('Shown only here: the owner accepts with it') })
    .optional()
    .describe('With `ownerEmail`'),
});
