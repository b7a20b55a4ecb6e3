import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/transaction-history: Transaction history. */
export const handler = notImplementedEndpoint();
