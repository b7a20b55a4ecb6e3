import * as z from 'zod';
import { iso } from '../shapes';

/** webhooks/create-endpoint: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string().describe('Shown only here'),
  status: z.enum(['enabled', 'disabled']),
  createdAt: iso,
});
