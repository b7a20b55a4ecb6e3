import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /docs: API reference page. */
export const handler = notImplementedEndpoint();
