import { endpointKey, isIdShaped, releaseEndpoint } from '../../events/endpoints';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../http/errors';
import { cancellationCodes, table, transact } from '../../platform/table';

/**
 * DELETE /v1/webhooks/endpoints/{id}: removed at once. Its pending deliveries stop (they
 * end `failed` with lastError `endpoint_deleted` when their next attempt comes up).
 */
export const handler = endpoint({ description: 'Remove a webhook endpoint.' }, async ({ params, principal }) => {
  const id = params.id;
  if (!isIdShaped(id, 'whe')) throw notFound(MSG.webhookEndpointNotFound);
  try {
    await transact([
      { Delete: { TableName: table(), Key: endpointKey(principal.id, id), ConditionExpression: 'attribute_exists(pk)' } },
      releaseEndpoint(principal.id),
    ]);
  } catch (e) {
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') throw notFound(MSG.webhookEndpointNotFound);
    throw e;
  }
  return ok(200, 'Webhook endpoint deleted', { id, deleted: true });
});
