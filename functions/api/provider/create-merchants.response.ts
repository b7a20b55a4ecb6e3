import * as z from 'zod';
import { count } from '../shapes';

/** provider/create-merchants: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  created: count,
  merchants: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      email: z.string(),
      providerId: z.string(),
      apiKey: z.string().describe('Shown only here'),
    }),
  ),
});
