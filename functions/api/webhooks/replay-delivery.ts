import { enqueueDeliveries, messageFor, overdueAt, rearmForReplay } from '../../webhooks/delivery-store';
import { toApiDelivery } from '../../webhooks/delivery-views';
import { getEndpoint, isIdShaped } from '../../webhooks/endpoint-store';
import { findDelivery, getLiveEvent } from '../../events/views';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';

/**
 * POST /v1/webhooks/deliveries/{id}/replay (DESIGN 6.6, 6.9): re-send now on the same
 * delivery record: same delivery id and event id (X-Webhook-Id), one more attempt, status
 * `pending` until that attempt succeeds or fails. It starts a new message chain (`seq` + 1),
 * so a retry still waiting in the queue for this delivery is dropped rather than doubled.
 * Works for any status; it reaches a disabled endpoint too (a 2xx re-enables it).
 */
export const handler = endpoint({ description: 'Re-send a delivery now (same event id).' }, async ({ params, principal }) => {
  const id = params.id;
  if (!isIdShaped(id, 'dlv')) throw notFound(MSG.deliveryNotFound);
  for (let round = 0; round < 3; round++) {
    const d = await findDelivery(principal.id, id);
    if (!d) throw notFound(MSG.deliveryNotFound);
    if (!(await getEndpoint(principal.id, d.endpointId))) throw notFound(MSG.webhookEndpointNotFound);
    // Events are kept 30 days (DESIGN 8.2): an older delivery has nothing left to send.
    if (!(await getLiveEvent(d.eventId))) throw conflict(MSG.eventExpired);
    const nowMs = Date.now();
    const updated = await rearmForReplay(d, principal.id, nowMs);
    if (!updated) continue; // replayed or recovered concurrently: look again
    // If this fails, recovery re-enqueues the delivery when it is overdue.
    await enqueueDeliveries([messageFor(updated, overdueAt(nowMs))]);
    return ok(202, 'Delivery replay queued', toApiDelivery(updated));
  }
  throw conflict(MSG.replayConflict);
});
