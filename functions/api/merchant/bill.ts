import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/customer/bill: Bill customers with agreement phrases. */
export const handler = notImplementedEndpoint();
