import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/provider/merchant: Read a merchant. */
export const handler = notImplementedEndpoint();
