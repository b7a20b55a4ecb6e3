import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { skipPaging } from '../../http/schemas';
import { merchantSchedules, SCHEDULE_STATUSES, scheduleSummary } from '../../recurring/views';

/** Unknown parameters and empty values are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  customerId: z.string().min(1).max(100).optional(),
  status: z.enum(SCHEDULE_STATUSES).optional(),
  ...skipPaging,
});

/**
 * GET /v1/recurring?customerId=&status=&limit=&skip= (merchant): its schedules, newest
 * first: `data {schedules[], total}`, `total` counting every match. `status` is the stored
 * status (active, paused, cancelled, completed, processing). Bad query -> 400
 * `Invalid query parameters`.
 */
export const handler = endpoint({ query: querySchema, description: 'List schedules' }, async ({ query, principal }) => {
  const all = await merchantSchedules(principal.id, { customerId: query.customerId, status: query.status });
  const own = all.filter((s) => s.merchantId === principal.id);
  return ok(200, 'Recurring schedules retrieved', {
    schedules: own.slice(query.skip, query.skip + query.limit).map(scheduleSummary),
    total: own.length,
  });
});
