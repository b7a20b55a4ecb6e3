import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/webhooks/endpoints: Add a webhook endpoint. */
export const handler = notImplementedEndpoint();
