import * as z from 'zod';
import { iso } from '../shapes';

/** recurring/skip (and bank/skip-subscription): `data` of the 2xx answer (DESIGN 8.5; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  scheduleId: z.string(),
  skippedRunAt: iso.describe('The date of the run that will not be billed'),
  nextBillingDate: iso.nullable().describe('null when skipping completed the schedule (no date left before endDate)'),
});
