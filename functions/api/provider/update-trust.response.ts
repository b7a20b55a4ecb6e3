import { merchantTrust } from '../shapes';

/** provider/update-trust: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = merchantTrust;
