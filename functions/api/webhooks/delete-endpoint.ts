import { deleteEndpoint, isIdShaped } from '../../webhooks/endpoint-store';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';

/**
 * DELETE /v1/webhooks/endpoints/{id}: removed at once. Its pending deliveries stop (they
 * end `failed` with lastError `endpoint_deleted` when their next attempt comes up).
 */
export const handler = endpoint({ description: 'Remove a webhook endpoint.' }, async ({ params, principal, audit }) => {
  const id = params.id;
  if (!isIdShaped(id, 'whe')) throw notFound(MSG.webhookEndpointNotFound);
  if (!(await deleteEndpoint(principal.id, id, audit))) throw notFound(MSG.webhookEndpointNotFound);
  return ok(200, 'Webhook endpoint deleted', { id, deleted: true });
});
