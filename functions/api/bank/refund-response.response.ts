import { refund } from '../shapes';

/** bank/refund-response: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = refund;
