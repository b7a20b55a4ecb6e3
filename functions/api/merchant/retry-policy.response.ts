import * as z from 'zod';

/** merchant/retry-policy (and set-retry-policy): `data` of the 2xx answer (DESIGN 8.6; read by the OpenAPI generator, not by the handler). */
export const data = z
  .object({
    retryAfterDays: z
      .array(z.number().int())
      .describe('Retry i of a failed run comes retryAfterDays[i] days after the attempt before it, on a Lagos business day'),
    isDefault: z.boolean().describe('true: the merchant has not set a policy ([1, 1, 1])'),
  })
  .meta({ id: 'RetryPolicy' });
