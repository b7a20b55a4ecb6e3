import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/sandbox/customers: The simulated bank's magic customers. */
export const handler = notImplementedEndpoint();
