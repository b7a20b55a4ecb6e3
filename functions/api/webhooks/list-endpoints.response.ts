import * as z from 'zod';
import { endpointView, hasMore, total } from '../shapes';

/** webhooks/list-endpoints: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ endpoints: z.array(endpointView), total, hasMore });
