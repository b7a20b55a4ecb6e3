import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest } from '../../platform/errors';
import { getKeyRef, listKeys } from '../../identity/participant-store';
import { pageQuery } from './schemas';

/** GET /v1/keys (person; owner, admin, developer): the participant's keys, newest first, never the keys themselves. */
export const handler = endpoint(
  { query: pageQuery, description: "List the participant's API keys: prefix, last use, expiry, revocation." },
  async ({ query, principal }) => {
    const after = query.startingAfter ? await getKeyRef(query.startingAfter) : undefined;
    if (query.startingAfter && after?.participantId !== principal.id) {
      throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the id of a key of yours' }]);
    }
    const page = await listKeys(principal.id, query.limit, after);
    return ok(200, 'API keys retrieved', page);
  },
);
