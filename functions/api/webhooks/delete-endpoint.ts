import { notImplementedEndpoint } from '../../http/endpoint';

/** DELETE /v1/webhooks/endpoints/{id}: Remove a webhook endpoint. */
export const handler = notImplementedEndpoint();
