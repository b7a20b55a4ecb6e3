import * as z from 'zod';
import { iso } from '../shapes';

/** account/create-key: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ keyId: z.string(), apiKey: z.string().describe('Shown only here'), expiresAt: iso.nullable() });
