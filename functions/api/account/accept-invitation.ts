import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, forbidden, notFound } from '../../platform/errors';
import { personEmail } from '../../identity/tokens';
import { acceptInvitation, getInvitation } from '../../identity/people-store';
import { toApiMember } from '../../identity/views';

/**
 * POST /v1/team/invitations/{token}/accept (person): the signed-in person whose e-mail the
 * invitation names joins the team with its role. Unknown, used and expired tokens are 404.
 */
export const handler = endpoint(
  { description: 'Accept an invitation: join the team with its role.' },
  async ({ params, person, accessToken, audit }) => {
    const token = params.token!;
    const inv = await getInvitation(token);
    if (!inv) throw notFound(MSG.invitationNotFound);
    const email = await personEmail(accessToken!);
    if (email !== inv.email) throw forbidden(MSG.invitationOtherEmail);
    const joined = await acceptInvitation(token, inv, person!, email, audit);
    if (!joined.ok) throw joined.reason === 'already_member' ? conflict(MSG.alreadyMember) : notFound(MSG.invitationNotFound);
    return ok(200, 'Invitation accepted', {
      participantId: inv.participantId,
      participantType: inv.participantKind,
      ...toApiMember(joined.membership),
    });
  },
);
