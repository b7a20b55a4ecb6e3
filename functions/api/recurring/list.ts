import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { skipPaging } from '../../http/schemas';
import { parseSchedule, SCHEDULE_STATUSES, scheduleItemNamed, scheduleRange, scheduleSummary } from '../../recurring/views';
import type { Item } from '../../platform/table';
import { customerNames } from '../../customers/views';

/** Unknown parameters and empty values are refused (a misspelt filter must not silently list everything). */
const querySchema = z.strictObject({
  customerId: z.string().min(1).max(100).optional(),
  status: z.enum(SCHEDULE_STATUSES).optional(),
  ...skipPaging,
});

/**
 * GET /v1/recurring?customerId=&status=&limit=&skip=|startingAfter= (merchant): its schedules,
 * newest first, each with its customer's name and e-mail: `data {schedules[], total, hasMore}`, `total` (skip pages) counting every
 * match. `status` is the stored status (active, paused, cancelled, completed, processing).
 * Bad query -> 400 `Invalid query parameters`.
 */
export const handler = endpoint({ query: querySchema, description: 'List schedules' }, async ({ query, principal }) => {
  const range = scheduleRange({ merchantId: principal.id }, { customerId: query.customerId, status: query.status });
  const page = await listPage<Item>(range, pagingOf(query), scheduleItemNamed, 'one of your schedules');
  const schedules = page.items.map((it) => parseSchedule(it)!);
  // The customers' names and e-mails beside their ids (DESIGN 9.7): one BatchGetItem for the page.
  const customers = await customerNames(schedules.map((s) => s.customerId));
  return ok(200, 'Recurring schedules retrieved', {
    schedules: schedules.map((s) => ({ ...scheduleSummary(s), customer: customers.get(s.customerId) ?? null })),
    ...pageFields(page),
  });
});
