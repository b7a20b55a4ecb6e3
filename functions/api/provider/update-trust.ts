import { notImplementedEndpoint } from '../../http/endpoint';

/** PATCH /v1/provider/merchant/trust: Set a merchant's trust. */
export const handler = notImplementedEndpoint();
