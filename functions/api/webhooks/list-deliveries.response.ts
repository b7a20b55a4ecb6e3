import * as z from 'zod';
import { delivery, hasMore, total } from '../shapes';

/** webhooks/list-deliveries: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z.object({ deliveries: z.array(delivery), total, hasMore });
