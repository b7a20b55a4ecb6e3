import { endpoint, ok } from '../../http/endpoint';
import { changeTeamMember } from '../../identity/team';
import { toApiMember } from '../../identity/views';
import { updateMemberSchema } from './schemas';

/** PATCH /v1/team/members/{userId} (person; owner, admin): change a member's role. */
export const handler = endpoint(
  { body: updateMemberSchema, description: "Change a member's role. Only an owner grants or takes the owner role; the last owner stays." },
  async ({ params, body, principal, audit }) => {
    const member = await changeTeamMember(principal.id, principal.role, params.userId!, body.role, audit);
    return ok(200, 'Member updated', toApiMember(member));
  },
);
