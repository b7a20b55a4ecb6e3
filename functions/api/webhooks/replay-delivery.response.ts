import { delivery } from '../shapes';

/** webhooks/replay-delivery: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = delivery;
