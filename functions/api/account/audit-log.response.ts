import * as z from 'zod';
import { iso } from '../shapes';

/** account/audit-log: `data` of the 2xx answer (read by the OpenAPI generator, not by the handler). */
export const data = z.object({
  entries: z.array(
    z.object({
      id: z.string(),
      at: iso,
      actor: z.object({ type: z.enum(['user', 'apiKey', 'operator']), id: z.string(), email: z.string().optional() }),
      action: z.string().describe('e.g. `api_key.created`, `member.role_changed:admin->viewer`, `webhook_endpoint.deleted`'),
      target: z.string().describe('The id of what changed'),
      requestId: z.string(),
      ip: z.string(),
    }),
  ),
  hasMore: z.boolean(),
});
