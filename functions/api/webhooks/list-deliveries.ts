import { deliveryNamed, deliveryRange, toApiDelivery, type DeliveryItem } from '../../webhooks/delivery-store';
import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { listDeliveriesQuery } from './schemas';

/**
 * GET /v1/webhooks/deliveries?status=&type=&limit=&skip=|startingAfter=: the caller's
 * deliveries (it is the receiving participant), newest first, with their latest attempts;
 * `total` (skip pages) counts every match.
 */
export const handler = endpoint(
  { query: listDeliveriesQuery, description: "List the caller's webhook deliveries, newest first." },
  async ({ query, principal }) => {
    const page = await listPage<DeliveryItem>(
      deliveryRange(principal.id, { status: query.status, type: query.type }),
      pagingOf(query),
      deliveryNamed,
      'one of your deliveries',
    );
    return ok(200, 'Webhook deliveries retrieved', { deliveries: page.items.map(toApiDelivery), ...pageFields(page) });
  },
);
