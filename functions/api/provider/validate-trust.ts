import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/provider/merchant/trust/validate: Check a merchant's trust level. */
export const handler = notImplementedEndpoint();
