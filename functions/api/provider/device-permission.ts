import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/provider/merchant/trust/device-permission: Check device lookup permission. */
export const handler = notImplementedEndpoint();
