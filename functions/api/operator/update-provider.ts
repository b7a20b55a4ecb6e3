import { notImplementedEndpoint } from '../../http/endpoint';

/** PATCH /v1/operator/providers/{id}: Set a provider's maxTrustLevel. */
export const handler = notImplementedEndpoint();
