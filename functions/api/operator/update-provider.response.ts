import * as z from 'zod';
import { TRUST_LEVELS } from '../../domain/trust';

/** operator/update-provider: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ id: z.string(), maxTrustLevel: z.enum(TRUST_LEVELS) });
