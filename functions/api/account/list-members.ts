import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest } from '../../platform/errors';
import { getMembership, listTeam } from '../../identity/members';
import { toApiMember } from '../../identity/views';
import { pageQuery } from './schemas';

/** GET /v1/team/members (person; owner, admin): the team, newest member first (DESIGN 8). */
export const handler = endpoint(
  { query: pageQuery, description: "List the participant's team and their roles." },
  async ({ query, principal }) => {
    const after = query.startingAfter ? await getMembership(query.startingAfter, principal.id) : undefined;
    if (query.startingAfter && !after)
      throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the userId of a member' }]);
    const page = await listTeam(principal.id, query.limit, after);
    return ok(200, 'Team retrieved', { members: page.members.map(toApiMember), hasMore: page.hasMore });
  },
);
