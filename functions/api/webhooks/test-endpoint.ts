import { commit } from '../../events/outbox';
import { getEndpoint, isIdShaped } from '../../webhooks/endpoint-store';
import { enqueueDeliveries } from '../../webhooks/delivery-store';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';

/**
 * POST /v1/webhooks/endpoints/{id}/test: a `webhook.test` event for this endpoint only,
 * through the outbox like any event (signed, retried, listed, replayable). It is sent even
 * if the endpoint is not subscribed to `webhook.test` or was disabled by a 410; a 2xx
 * answer re-enables a disabled endpoint.
 */
export const handler = endpoint({ description: 'Send a webhook.test event to this endpoint.' }, async ({ params, principal }) => {
  const id = params.id;
  if (!isIdShaped(id, 'whe')) throw notFound(MSG.webhookEndpointNotFound);
  const ep = await getEndpoint(principal.id, id);
  if (!ep) throw notFound(MSG.webhookEndpointNotFound);
  const [event] = await commit(
    [],
    [
      {
        type: 'webhook.test',
        to: principal.id,
        endpointId: id,
        data: { endpointId: id, participantId: principal.id, message: 'This is a test event.' },
      },
    ],
    { enqueue: enqueueDeliveries },
  );
  return ok(202, 'Test event queued', {
    eventId: event!.id,
    deliveryId: event!.deliveryIds[0] ?? null,
    endpointId: id,
    type: 'webhook.test',
  });
});
