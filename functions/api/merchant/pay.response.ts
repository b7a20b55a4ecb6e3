import * as z from 'zod';
import { billedElement, element } from '../shapes';

/** merchant/pay: one element of the per-phrase array answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const elements = z.object({ ...element, lookupPhrase: z.string(), ...billedElement });
