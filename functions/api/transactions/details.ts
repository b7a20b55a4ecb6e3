import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/transaction-details: Transaction details. */
export const handler = notImplementedEndpoint();
