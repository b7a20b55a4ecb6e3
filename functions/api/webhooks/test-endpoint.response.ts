import * as z from 'zod';

/** webhooks/test-endpoint: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  eventId: z.string(),
  deliveryId: z.string().nullable(),
  endpointId: z.string(),
  type: z.literal('webhook.test'),
});
