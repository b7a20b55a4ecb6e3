import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/billing/recurring/create: Create a recurring schedule. */
export const handler = notImplementedEndpoint();
