import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/refunds/{refundId}/status: Read a refund. */
export const handler = notImplementedEndpoint();
