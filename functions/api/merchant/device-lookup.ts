import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/customer/device/lookup: Find a customer by device. */
export const handler = notImplementedEndpoint();
