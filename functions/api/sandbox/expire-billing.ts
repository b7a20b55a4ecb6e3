import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/sandbox/billing-requests/{id}/expire: Expire a pending approval now. */
export const handler = notImplementedEndpoint();
