import { getEndpoint, isIdShaped, replaceSecret, sealSecret, secretOverlapSeconds } from '../../webhooks/endpoint-store';
import { newSecret } from '../../webhooks/signing';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';

/**
 * POST /v1/webhooks/endpoints/{id}/rotate-secret: a new secret, shown only here. The
 * replaced one keeps signing alongside it for 24 h under Standard Webhooks (`webhook-signature`
 * then carries both, the new one first); `X-Webhook-Signature` carries the new one's only
 * (DESIGN 10.3). Rotating again during the overlap drops the oldest.
 */
export const handler = endpoint(
  { description: 'Rotate the signing secret; the previous one keeps signing alongside for 24 h.' },
  async ({ params, principal, audit }) => {
    const id = params.id;
    if (!isIdShaped(id, 'whe')) throw notFound(MSG.webhookEndpointNotFound);
    for (let round = 0; round < 3; round++) {
      const ep = await getEndpoint(principal.id, id);
      if (!ep) throw notFound(MSG.webhookEndpointNotFound);
      const secret = newSecret();
      const nowMs = Date.now();
      const now = new Date(nowMs).toISOString();
      const previousSecretExpiresAt = new Date(nowMs + secretOverlapSeconds() * 1000).toISOString();
      // Deleted, or rotated concurrently: look again.
      if (!(await replaceSecret(ep, await sealSecret(id, secret), previousSecretExpiresAt, now, audit))) continue;
      return ok(200, 'Webhook secret rotated', { id, secret, previousSecretExpiresAt });
    }
    throw conflict(MSG.rotationConflict);
  },
);
