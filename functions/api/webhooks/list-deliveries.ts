import { listDeliveries, toApiDelivery } from '../../webhooks/delivery-store';
import { endpoint, ok } from '../../http/endpoint';
import { listDeliveriesQuery } from './schemas';

/** Upper bound of deliveries scanned for one list (newest first); `total` counts within it. */
const SCAN_LIMIT = 10_000;

/**
 * GET /v1/webhooks/deliveries?status=&type=&limit=&skip=: the caller's deliveries (it is the
 * receiving participant), newest first, with their latest attempts.
 */
export const handler = endpoint(
  { query: listDeliveriesQuery, description: "List the caller's webhook deliveries, newest first." },
  async ({ query, principal }) => {
    const items = await listDeliveries(principal.id, { status: query.status, type: query.type }, SCAN_LIMIT);
    const deliveries = items.slice(query.skip, query.skip + query.limit).map(toApiDelivery);
    return ok(200, 'Webhook deliveries retrieved', { deliveries, total: items.length });
  },
);
