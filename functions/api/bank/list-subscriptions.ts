import * as z from 'zod';
import { batchGet } from '../../billing/reads';
import { endpoint, ok } from '../../http/endpoint';
import { skipPaging } from '../../http/schemas';
import { participantKey } from '../../participants/store';
import { bankSubscriptions, SCHEDULE_STATUSES, subscriptionView } from '../../recurring/views';
import type { Item } from '../../platform/table';

/** Unknown parameters and empty values are refused. */
const querySchema = z.strictObject({
  customerId: z.string().min(1).max(100).optional(),
  entityId: z.string().min(1).max(100).optional(),
  status: z.enum(SCHEDULE_STATUSES).optional(),
  ...skipPaging,
});

/**
 * GET /v1/bank/customer/subscriptions?customerId=&entityId=&status=&limit=&skip= (bank): the
 * recurring schedules of its customers, newest first, with the merchant's current name:
 * `data {subscriptions[], total}`. The bank's view omits the merchant's agreement phrase and
 * metadata.
 */
export const handler = endpoint({ query: querySchema, description: "List the bank's customers' recurring schedules" }, async ({ query, principal }) => {
  const all = await bankSubscriptions(principal.id, { customerId: query.customerId, status: query.status, merchantId: query.entityId });
  const own = all.filter((s) => s.bankId === principal.id);
  const page = own.slice(query.skip, query.skip + query.limit);
  const merchants = page.length ? await batchGet<Item>([...new Set(page.map((s) => s.merchantId))].map(participantKey), ['name']) : new Map<string, Item>();
  const nameOf = (merchantId: string) => (merchants.get(participantKey(merchantId).pk)?.name as string | undefined) ?? null;
  return ok(200, 'Subscriptions retrieved', { subscriptions: page.map((s) => subscriptionView(s, nameOf(s.merchantId))), total: own.length });
});
