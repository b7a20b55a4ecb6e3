import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/provider/merchants: List the provider's merchants. */
export const handler = notImplementedEndpoint();
