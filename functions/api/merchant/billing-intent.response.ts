import * as z from 'zod';
import { element } from '../shapes';

/** merchant/billing-intent: one element of the per-phrase array answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const elements = z.object({ ...element, lookupPhrase: z.string(), intentId: z.string().optional(), code: z.string().optional() });
