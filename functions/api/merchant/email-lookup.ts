import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/customer/banks: Find a customer's banks by email. */
export const handler = notImplementedEndpoint();
