import { newId } from '../../domain/ids';
import { endpointKey, insertEndpoint, sealSecret, toApiEndpoint, MAX_ENDPOINTS, type EndpointItem } from '../../webhooks/endpoint-store';
import { newSecret } from '../../webhooks/signing';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict } from '../../platform/errors';
import { nowIso } from '../../platform/table';
import { createEndpointSchema, normaliseEvents } from './schemas';

/**
 * POST /v1/webhooks/endpoints (DESIGN 6.6): `{url, events?}` -> 201 with the signing secret,
 * shown only here. The owner is the caller (a provider with X-Entity-Id: that merchant).
 */
export const handler = endpoint(
  { body: createEndpointSchema, description: 'Add a webhook endpoint. The secret is shown only in this response.' },
  async ({ body, principal, audit, apiVersion }) => {
    const id = newId('whe');
    const secret = newSecret();
    const now = nowIso();
    const item: EndpointItem = {
      ...endpointKey(principal.id, id),
      id,
      ownerId: principal.id,
      url: body.url,
      events: normaliseEvents(body.events),
      status: 'enabled',
      secret: await sealSecret(id, secret),
      secretVersion: 1,
      apiVersion,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await insertEndpoint(item, audit))) {
      throw conflict(MSG.webhookEndpointLimit, [{ path: '(root)', message: `at most ${MAX_ENDPOINTS} endpoints per participant` }]);
    }
    const shown = toApiEndpoint(item);
    return ok(201, 'Webhook endpoint created', { id, url: shown.url, events: shown.events, secret, status: shown.status, createdAt: now });
  },
);
