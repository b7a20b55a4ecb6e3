import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/bank/customers/batches/{batchId}: Read a customer batch result. */
export const handler = notImplementedEndpoint();
