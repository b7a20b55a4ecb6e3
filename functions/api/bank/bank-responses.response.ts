import * as z from 'zod';
import { element } from '../shapes';

const { entityId: _perPhrase, ...status } = element;

/** bank/bank-responses: one element of the array answer, in the order of `responses` (DESIGN 8.9; read by the OpenAPI generator, not by the handler). */
export const elements = z.object({ billingRequestId: z.string(), ...status });
