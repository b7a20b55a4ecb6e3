import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/webhooks/deliveries: List webhook deliveries. */
export const handler = notImplementedEndpoint();
