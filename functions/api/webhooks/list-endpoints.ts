import { listEndpoints, toApiEndpoint } from '../../webhooks/endpoint-store';
import { endpoint, ok } from '../../http/endpoint';

/** GET /v1/webhooks/endpoints: the caller's endpoints, oldest first, never a secret. */
export const handler = endpoint({ description: "List the caller's webhook endpoints (secrets are never shown)." }, async ({ principal }) => {
  const endpoints = (await listEndpoints(principal.id)).map(toApiEndpoint);
  return ok(200, 'Webhook endpoints retrieved', { endpoints, total: endpoints.length });
});
