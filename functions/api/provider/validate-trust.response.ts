import * as z from 'zod';
import { TRUST_LEVELS } from '../../domain/trust';

/** provider/validate-trust: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  entityId: z.string(),
  currentTrustLevel: z.enum(TRUST_LEVELS),
  requiredTrustLevel: z.enum(TRUST_LEVELS),
  trusted: z.boolean(),
  valid: z.boolean(),
});
