import { toApiDelivery } from '../../webhooks/delivery-views';
import { deliveriesAfter, deliveriesAt } from '../../events/views';
import { endpoint, ok } from '../../http/endpoint';
import { badCursor, pageFields, pagingOf } from '../../http/paging';
import { listDeliveriesQuery } from './schemas';

/**
 * GET /v1/webhooks/deliveries?status=&type=&limit=&skip=|startingAfter=: the caller's
 * deliveries (it is the receiving participant), newest first, with their latest attempts;
 * `total` (skip pages) counts every match.
 */
export const handler = endpoint(
  { query: listDeliveriesQuery, description: "List the caller's webhook deliveries, newest first." },
  async ({ query, principal }) => {
    const paging = pagingOf(query);
    const filter = { status: query.status, type: query.type };
    const page =
      paging.startingAfter === undefined
        ? await deliveriesAt(principal.id, filter, paging.skip, paging.limit)
        : await deliveriesAfter(principal.id, filter, paging.limit, paging.startingAfter);
    if (!page) throw badCursor('one of your deliveries');
    return ok(200, 'Webhook deliveries retrieved', { deliveries: page.items.map(toApiDelivery), ...pageFields(page) });
  },
);
