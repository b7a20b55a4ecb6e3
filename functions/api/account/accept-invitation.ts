import { endpoint, ok } from '../../http/endpoint';
import { acceptInvitation } from '../../identity/invitation-store';
import { getInvitationByToken, stateOf } from '../../identity/invitations';
import { personContact } from '../../identity/tokens';
import { toApiMember } from '../../identity/views';
import { AppError, MSG, conflict, forbidden, notFound } from '../../platform/errors';

/**
 * POST /v1/team/invitations/{token}/accept (person): the signed-in person joins the team with
 * the invitation's role, when they have VERIFIED the e-mail address it names (DESIGN 9.1):
 * another address is 403, the same one unverified is 403 `Verify your e-mail address first`.
 * Unknown, used and withdrawn tokens are 404; an expired one is 410.
 */
export const handler = endpoint(
  { description: 'Accept an invitation with the verified e-mail address it names: join the team with its role.' },
  async ({ params, person, accessToken, audit }) => {
    const token = params.token!;
    const inv = await getInvitationByToken(token);
    const state = inv ? stateOf(inv) : undefined;
    if (!inv || state === 'accepted' || state === 'revoked') throw notFound(MSG.invitationNotFound);
    if (state === 'expired') throw new AppError(410, MSG.invitationExpired);
    const { email, emailVerified } = await personContact(accessToken!);
    if (email !== inv.email) throw forbidden(MSG.invitationOtherEmail);
    if (!emailVerified) throw forbidden(MSG.invitationEmailUnverified);
    const joined = await acceptInvitation(token, inv, person!, email, audit);
    if (!joined.ok) throw joined.reason === 'already_member' ? conflict(MSG.alreadyMember) : notFound(MSG.invitationNotFound);
    return ok(200, 'Invitation accepted', {
      participantId: inv.participantId,
      participantType: inv.participantKind,
      ...toApiMember(joined.membership),
    });
  },
);
