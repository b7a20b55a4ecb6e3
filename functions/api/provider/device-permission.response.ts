import * as z from 'zod';
import { trustStatus } from '../shapes';

/** provider/device-permission: the whole 2xx body (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const body = z.object({ statusCode: z.literal(200), allowed: z.boolean(), reason: z.string(), trustStatus });
