import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/refunds/initiate: Start a refund. */
export const handler = notImplementedEndpoint();
