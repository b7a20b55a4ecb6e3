import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/sandbox/recurring/{scheduleId}/run: Make the next run due now. */
export const handler = notImplementedEndpoint();
