import { endpoint, ok } from '../../http/endpoint';
import { unrevokedKeysCreatedBy } from '../../identity/participant-store';
import { changeTeamMember } from '../../identity/team';

/**
 * DELETE /v1/team/members/{userId} (person; owner, admin): remove a member (the last owner
 * stays). Their keys keep working; the answer names those still unrevoked so the caller can
 * revoke them (DESIGN 9.1).
 */
export const handler = endpoint(
  {
    description:
      "Remove a member from the team. The last owner cannot be removed. The member's keys keep working: `keysCreated` lists them.",
  },
  async ({ params, principal, audit }) => {
    const member = await changeTeamMember(principal.id, principal.role, params.userId!, undefined, audit);
    const keysCreated = await unrevokedKeysCreatedBy(principal.id, member.userId);
    return ok(200, 'Member removed', { userId: member.userId, removed: true, keysCreated });
  },
);
