import * as z from 'zod';
import { SCHEDULE_STATUSES } from '../../recurring/views';
import { iso } from '../shapes';

/** recurring/resume: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  scheduleId: z.string(),
  status: z.enum(SCHEDULE_STATUSES),
  resumedAt: iso.nullable(),
  nextBillingDate: iso.nullable(),
});
