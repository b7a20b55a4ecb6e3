import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/sandbox/refunds/{refundId}/complete: Finish a refund now. */
export const handler = notImplementedEndpoint();
