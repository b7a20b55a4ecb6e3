import * as z from 'zod';
import { merchantTrust } from '../shapes';

/** provider/list-trust: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z
  .array(merchantTrust.extend({ entityName: z.string() }))
  .describe('The page; `hasMore` and, on offset pages, `total` are at the top level');
