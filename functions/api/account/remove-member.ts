import { endpoint, ok } from '../../http/endpoint';
import { changeTeamMember } from '../../identity/team';

/** DELETE /v1/team/members/{userId} (person; owner, admin): remove a member (the last owner stays). */
export const handler = endpoint(
  { description: 'Remove a member from the team. The last owner cannot be removed.' },
  async ({ params, principal, audit }) => {
    const member = await changeTeamMember(principal.id, principal.role, params.userId!, undefined, audit);
    return ok(200, 'Member removed', { userId: member.userId, removed: true });
  },
);
