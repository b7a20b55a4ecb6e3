import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/billing/intent-response: Return the customer's decision on an intent. */
export const handler = notImplementedEndpoint();
