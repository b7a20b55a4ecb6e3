import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/provider/merchant/trust/multiple: List merchants' trust. */
export const handler = notImplementedEndpoint();
