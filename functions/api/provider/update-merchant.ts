import { notImplementedEndpoint } from '../../http/endpoint';

/** PATCH /v1/provider/merchant: Update a merchant. */
export const handler = notImplementedEndpoint();
