import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/recurring: List schedules. */
export const handler = notImplementedEndpoint();
