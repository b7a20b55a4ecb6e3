import * as z from 'zod';
import { application } from '../shapes';

/** operator/list-applications: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({ applications: z.array(application), hasMore: z.boolean() });
