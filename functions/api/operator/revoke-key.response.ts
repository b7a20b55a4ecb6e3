import * as z from 'zod';
import { iso } from '../shapes';

/** operator/revoke-key: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ keyId: z.string(), participantId: z.string(), revokedAt: iso });
