import { notImplementedEndpoint } from '../../http/endpoint';

/** DELETE /v1/operator/keys/{keyId}: Revoke an API key. */
export const handler = notImplementedEndpoint();
