import * as z from 'zod';
import { TRUST_LEVELS } from '../../domain/trust';
import { hasMore, iso, total } from '../shapes';

/** provider/list-merchants: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  merchants: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      email: z.string(),
      trusted: z.boolean(),
      trustLevel: z.enum(TRUST_LEVELS),
      createdAt: iso,
    }),
  ),
  total,
  hasMore,
});
