import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/webhooks/endpoints: List webhook endpoints. */
export const handler = notImplementedEndpoint();
