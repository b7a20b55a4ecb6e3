import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/merchant/customer-decisions: List customers' decisions. */
export const handler = notImplementedEndpoint();
