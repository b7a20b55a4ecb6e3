import { endpoint, ok } from '../../http/endpoint';
import { inviteToTeam } from '../../identity/invitations';
import { MSG, forbidden } from '../../platform/errors';
import { inviteSchema } from './schemas';

/**
 * POST /v1/team/invitations (person; owner, admin): the token (shown only here, and e-mailed
 * to the invitee as a dashboard link) lets the person with that verified e-mail address join
 * with `role` within 7 days. Only an owner may invite an owner; a member's address is 409.
 */
export const handler = endpoint(
  {
    body: inviteSchema,
    description:
      'Invite a person (by e-mail) to the team: they receive a link to the dashboard. The token is shown only in this response; it is valid for 7 days.',
  },
  async ({ body, principal, audit }) => {
    if (body.role === 'owner' && principal.role !== 'owner') throw forbidden(MSG.ownerOnly);
    const p = principal.kind as 'bank' | 'merchant' | 'provider';
    const inv = await inviteToTeam(principal.id, p, body.email, body.role, audit);
    return ok(201, 'Invitation created', { invitationId: inv.invitationId, token: inv.token, expiresAt: inv.expiresAt });
  },
);
