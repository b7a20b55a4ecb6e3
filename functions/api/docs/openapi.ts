import { notImplementedEndpoint } from '../../http/endpoint';

/** GET /v1/openapi.json: OpenAPI 3.1 document. */
export const handler = notImplementedEndpoint();
