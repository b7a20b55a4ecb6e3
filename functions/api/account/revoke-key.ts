import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { revokeKey } from '../../identity/participant-store';

/** DELETE /v1/keys/{keyId} (person; owner, admin, developer): revoked at once; another participant's key is 404. */
export const handler = endpoint({ description: 'Revoke an API key at once.' }, async ({ params, principal, audit }) => {
  const revoked = await revokeKey(params.keyId!, audit, principal.id);
  if (!revoked) throw notFound(MSG.keyNotFound);
  return ok(200, 'API key revoked', { keyId: revoked.keyId, revokedAt: revoked.revokedAt });
});
