import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/balance/details: Read the merchant's balance. */
export const handler = notImplementedEndpoint();
