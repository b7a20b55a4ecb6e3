import { endpoint, ok } from '../../http/endpoint';
import { revokeInvitation } from '../../identity/invitation-store';
import { findInvitation, stateOf } from '../../identity/invitations';
import { MSG, notFound } from '../../platform/errors';

/**
 * DELETE /v1/team/invitations/{invitationId} (person; owner, admin): withdraw a pending
 * invitation; its link stops working. Unknown, another participant's, accepted or already
 * withdrawn: 404 `Invitation not found`.
 */
export const handler = endpoint(
  { description: 'Withdraw a pending invitation: its link stops working.' },
  async ({ params, principal, audit }) => {
    const inv = await findInvitation(principal.id, params.invitationId!);
    if (!inv || (stateOf(inv) !== 'pending' && stateOf(inv) !== 'expired')) throw notFound(MSG.invitationNotFound);
    if (!(await revokeInvitation(inv, audit))) throw notFound(MSG.invitationNotFound);
    return ok(200, 'Invitation withdrawn', { invitationId: inv.invitationId, revoked: true });
  },
);
