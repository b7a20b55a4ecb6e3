import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/sandbox/settlements/run: Settle all due funds now. */
export const handler = notImplementedEndpoint();
