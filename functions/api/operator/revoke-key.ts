import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { revokeKey } from '../../identity/participant-store';

/** DELETE /v1/operator/keys/{keyId}: revoked at once (the next request with it is 401). */
export const handler = endpoint({}, async ({ params, audit }) => {
  const revoked = await revokeKey(params.keyId!, audit);
  if (!revoked) throw notFound(MSG.operatorKeyNotFound);
  return ok(200, 'API key revoked', revoked);
});
