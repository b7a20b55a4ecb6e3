import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/billing/intent: Send billing intents. */
export const handler = notImplementedEndpoint();
