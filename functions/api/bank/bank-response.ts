import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/billing/bank-response: Answer a billing request. */
export const handler = notImplementedEndpoint();
