import * as z from 'zod';
import { count, endpointView } from '../shapes';

/** webhooks/list-endpoints: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ endpoints: z.array(endpointView), total: count });
