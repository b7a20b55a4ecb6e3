import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/recurring/{scheduleId}/pause: Pause a schedule. */
export const handler = notImplementedEndpoint();
