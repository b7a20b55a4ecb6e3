import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/customer/pay: Request a one-time payment. */
export const handler = notImplementedEndpoint();
