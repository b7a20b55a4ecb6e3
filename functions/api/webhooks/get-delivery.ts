import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { isIdShaped } from '../../webhooks/endpoint-store';
import { deliveryDetail } from '../../webhooks/delivery-views';
import { findDelivery } from '../../events/views';

/**
 * GET /v1/webhooks/deliveries/{id} (DESIGN 9.3): one of the caller's deliveries with its kept
 * attempts: each attempt's request (signatures `<redacted>`) and the receiver's answer, bodies
 * cut at 4 KB. Kept 30 days. Unknown, expired or another participant's: 404 `Delivery not found`.
 */
export const handler = endpoint(
  { description: 'Read a delivery with its attempts: each request sent (signatures redacted) and the answer received.' },
  async ({ params, principal }) => {
    const id = params.id;
    const found = isIdShaped(id, 'dlv') ? await findDelivery(principal.id, id) : undefined;
    const d = found ? await deliveryDetail(found) : undefined;
    if (!d) throw notFound(MSG.deliveryNotFound);
    return ok(200, 'Delivery retrieved', d);
  },
);
