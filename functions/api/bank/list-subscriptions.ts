import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { skipPaging } from '../../http/schemas';
import { participantNames } from '../../identity/participant-store';
import { parseSchedule, SCHEDULE_STATUSES, scheduleItemNamed, scheduleRange, subscriptionView } from '../../recurring/views';
import type { Item } from '../../platform/table';

/** Unknown parameters and empty values are refused. */
const querySchema = z.strictObject({
  customerId: z.string().min(1).max(100).optional(),
  entityId: z.string().min(1).max(100).optional(),
  status: z.enum(SCHEDULE_STATUSES).optional(),
  ...skipPaging,
});

/**
 * GET /v1/bank/customer/subscriptions?customerId=&entityId=&status=&limit=&skip=|startingAfter=
 * (bank): the recurring schedules of its customers, newest first, with the merchant's current
 * name: `data {subscriptions[], total, hasMore}` (`total` on skip pages). The bank's view
 * omits the merchant's agreement phrase and metadata.
 */
export const handler = endpoint(
  { query: querySchema, description: "List the bank's customers' recurring schedules" },
  async ({ query, principal }) => {
    const range = scheduleRange(
      { bankId: principal.id },
      { customerId: query.customerId, status: query.status, merchantId: query.entityId },
    );
    const page = await listPage<Item>(range, pagingOf(query), scheduleItemNamed, "one of your customers' schedules");
    const schedules = page.items.map((it) => parseSchedule(it)!);
    const names = await participantNames(schedules.map((s) => s.merchantId));
    const nameOf = (merchantId: string) => names.get(merchantId) ?? null;
    return ok(200, 'Subscriptions retrieved', {
      subscriptions: schedules.map((s) => subscriptionView(s, nameOf(s.merchantId))),
      ...pageFields(page),
    });
  },
);
