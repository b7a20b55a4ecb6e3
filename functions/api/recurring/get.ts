import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/recurring/{scheduleId}: Read a schedule. */
export const handler = notImplementedEndpoint();
