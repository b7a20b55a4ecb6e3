import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/webhooks/endpoints/{id}/rotate-secret: Rotate an endpoint's secret. */
export const handler = notImplementedEndpoint();
