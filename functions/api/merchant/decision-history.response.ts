import * as z from 'zod';
import { decisionVersion } from '../shapes';

/** merchant/decision-history: `data` of the 2xx answer (DESIGN 8.5; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ versions: z.array(decisionVersion).describe('Oldest first; nothing is overwritten') });
