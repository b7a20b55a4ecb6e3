import * as z from 'zod';
import { settlement, settlementLine } from './shapes';

/** settlements/get: `data` of the 2xx answer (DESIGN 8.8; read by the OpenAPI generator, not by the handler). */
export const data = settlement.extend({
  lines: z.array(settlementLine).describe('Payments and refunds this settlement paid; they sum to amount'),
  linesComplete: z.boolean().describe('False when the settlement has more than 10,000 lines (export it for all of them)'),
});
