import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/webhooks/deliveries/{id}/replay: Re-send a delivery now. */
export const handler = notImplementedEndpoint();
