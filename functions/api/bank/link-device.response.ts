import * as z from 'zod';
import { iso } from '../shapes';

/** bank/link-device: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ customerId: z.string(), deviceId: z.string(), linkedAt: iso });
