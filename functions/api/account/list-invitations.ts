import { endpoint, ok } from '../../http/endpoint';
import { findInvitation, listPendingInvitations, pendingView } from '../../identity/invitations';
import { MSG, badRequest } from '../../platform/errors';
import { pageQuery } from './schemas';

/** GET /v1/team/invitations (person; owner, admin): the pending invitations, newest first. */
export const handler = endpoint(
  { query: pageQuery, description: 'The pending invitations of the team (not accepted, withdrawn or expired), newest first.' },
  async ({ query, principal }) => {
    if (query.startingAfter && !(await findInvitation(principal.id, query.startingAfter))) {
      throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the id of an invitation of yours' }]);
    }
    const page = await listPendingInvitations(principal.id, query.limit, query.startingAfter);
    return ok(200, 'Invitations retrieved', { invitations: page.invitations.map(pendingView), hasMore: page.hasMore });
  },
);
