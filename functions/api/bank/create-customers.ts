import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/bank/customers: Create customers in a batch. */
export const handler = notImplementedEndpoint();
