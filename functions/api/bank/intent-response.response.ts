import { decisionDetail } from '../shapes';

/** bank/intent-response: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = decisionDetail;
