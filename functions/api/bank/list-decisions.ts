import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/bank/customer-decisions: List the bank's customers' decisions. */
export const handler = notImplementedEndpoint();
