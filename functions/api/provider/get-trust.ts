import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/provider/merchant/trust: Read a merchant's trust. */
export const handler = notImplementedEndpoint();
