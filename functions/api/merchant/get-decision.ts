import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/customer-decisions/{id}: Read one customer decision. */
export const handler = notImplementedEndpoint();
