import { deliveriesByOwnerPk, toApiDelivery, type DeliveryItem } from '../../webhooks/deliveries';
import { endpoint, ok } from '../../http/endpoint';
import { queryAll } from '../../platform/table';
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
    const filters: string[] = [];
    const values: Record<string, unknown> = { ':pk': deliveriesByOwnerPk(principal.id) };
    const names: Record<string, string> = {};
    if (query.status) {
      filters.push('#s = :s');
      names['#s'] = 'status';
      values[':s'] = query.status;
    }
    if (query.type) {
      filters.push('eventType = :t');
      values[':t'] = query.type;
    }
    const items = await queryAll<DeliveryItem>(
      {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        FilterExpression: filters.length ? filters.join(' AND ') : undefined,
        ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
      },
      SCAN_LIMIT,
    );
    const deliveries = items.slice(query.skip, query.skip + query.limit).map(toApiDelivery);
    return ok(200, 'Webhook deliveries retrieved', { deliveries, total: items.length });
  },
);
