import * as z from 'zod';
import { member } from '../shapes';

/** account/list-members: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ members: z.array(member), hasMore: z.boolean() });
