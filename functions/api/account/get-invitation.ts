import { endpoint, ok } from '../../http/endpoint';
import { getInvitationByToken, invitationView } from '../../identity/invitations';
import { getParticipant } from '../../identity/participant-store';
import { MSG, notFound } from '../../platform/errors';

/**
 * GET /v1/invitations/{token} (a signed-in person): what an invitation offers, before it is
 * accepted: who invites, to what, with which role, for which address, and its state. The
 * token is the secret that names it (it was e-mailed to the invitee).
 */
export const handler = endpoint(
  {
    description:
      'Read an invitation by its token: who invites, to which participant, with which role, and whether it can still be accepted.',
  },
  async ({ params }) => {
    const inv = await getInvitationByToken(params.token!);
    if (!inv) throw notFound(MSG.invitationNotFound);
    return ok(200, 'Invitation retrieved', invitationView(inv, await getParticipant(inv.participantId)));
  },
);
