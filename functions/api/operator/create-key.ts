import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/operator/participants/{id}/keys: Issue a new API key for a participant. */
export const handler = notImplementedEndpoint();
