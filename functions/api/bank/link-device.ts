import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/bank/customer/device/link: Link a customer's device. */
export const handler = notImplementedEndpoint();
