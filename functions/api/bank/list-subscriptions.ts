import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/bank/customer/subscriptions: List the bank's customers' recurring schedules. */
export const handler = notImplementedEndpoint();
