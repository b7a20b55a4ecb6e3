import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/provider/merchants: Create merchants in a batch. */
export const handler = notImplementedEndpoint();
