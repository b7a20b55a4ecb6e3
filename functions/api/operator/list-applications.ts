import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest } from '../../platform/errors';
import { cursorPaging } from '../../http/schemas';
import { getApplication, listApplications } from '../../identity/people-store';
import { toApiApplication } from '../../identity/views';

const query = z.strictObject({
  status: z
    .enum(['pending', 'approved', 'rejected'])
    .optional()
    .transform((s) => s ?? 'pending'),
  ...cursorPaging,
});

/** GET /v1/operator/applications?status= (default pending): a queue, oldest first. */
export const handler = endpoint(
  { query, description: 'List applications in one status (default `pending`), oldest first.' },
  async ({ query }) => {
    const after = query.startingAfter ? await getApplication(query.startingAfter) : undefined;
    if (query.startingAfter && after?.status !== query.status) {
      throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the id of an application in this list' }]);
    }
    const page = await listApplications(query.status, query.limit, after);
    return ok(200, 'Applications retrieved', { applications: page.applications.map(toApiApplication), hasMore: page.hasMore });
  },
);
