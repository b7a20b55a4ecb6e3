import * as z from 'zod';
import { decision, remaining } from '../shapes';

/** bank/list-decisions: `data` of the 2xx answer (DESIGN 8.2; read by the OpenAPI generator, not by the handler). */
export const data = z
  .array(decision.extend({ remaining }))
  .describe('The page; `hasMore` and, on skip pages, `total` (all matches) are at the top level');
