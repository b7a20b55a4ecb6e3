import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/webhooks/endpoints/{id}/test: Send a webhook.test event. */
export const handler = notImplementedEndpoint();
