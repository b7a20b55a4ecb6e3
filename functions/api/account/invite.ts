import { endpoint, ok } from '../../http/endpoint';
import { MSG, forbidden } from '../../platform/errors';
import { invite } from '../../identity/people-store';
import { inviteSchema } from './schemas';

/**
 * POST /v1/team/invitations (person; owner, admin): the token (shown only here) lets the
 * person with that e-mail address join with `role`. Only an owner may invite an owner.
 */
export const handler = endpoint(
  {
    body: inviteSchema,
    description: 'Invite a person (by e-mail) to the team. The token is shown only in this response; it is valid for 7 days.',
  },
  async ({ body, principal, audit }) => {
    if (body.role === 'owner' && principal.role !== 'owner') throw forbidden(MSG.ownerOnly);
    const p = principal.kind as 'bank' | 'merchant' | 'provider';
    const inv = await invite({ id: principal.id, type: p }, body.email, body.role, audit);
    return ok(201, 'Invitation created', { invitationId: inv.invitationId, token: inv.token });
  },
);
