import * as z from 'zod';
import { iso } from '../shapes';

/** account/revoke-key: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ keyId: z.string(), revokedAt: iso });
