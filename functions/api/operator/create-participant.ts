import { notImplementedEndpoint } from '../../http/endpoint';

/** POST /v1/operator/participants: Create a bank, merchant or provider. */
export const handler = notImplementedEndpoint();
