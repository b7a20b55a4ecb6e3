import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/recurring/{scheduleId}/resume: Resume a schedule. */
export const handler = notImplementedEndpoint();
