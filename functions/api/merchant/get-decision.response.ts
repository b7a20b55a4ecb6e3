import { decisionDetail, remaining } from '../shapes';

/** merchant/get-decision: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = decisionDetail.extend({ remaining });
