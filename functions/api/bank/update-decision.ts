import { notImplementedEndpoint } from '../../http/endpoint';

/** PUT /v1/bank/customer-decisions/{id}: Change a decision on the customer's behalf. */
export const handler = notImplementedEndpoint();
