import { notImplementedEndpoint } from '../../http/endpoint';

/** DELETE /v1/recurring/{scheduleId}: Cancel a schedule. */
export const handler = notImplementedEndpoint();
