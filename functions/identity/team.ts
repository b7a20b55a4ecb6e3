/**
 * Team changes (DESIGN 8.3): a member's role changed, or the member removed. Only an owner
 * may grant, change or remove the owner role (403); the last owner cannot stop being one
 * (409 `A participant needs at least one owner`, enforced in the store's transaction).
 */
import { MSG, conflict, forbidden, notFound } from '../platform/errors';
import type { AuditContext } from './audit';
import { getMembership } from './members';
import type { Role } from './roles';
import { changeMember } from './people-store';
import { conflictBackoff } from '../platform/retry';

const MAX_ATTEMPTS = 5;

/** `role` undefined: remove the member. `actorRole` is the caller's own role. */
export async function changeTeamMember(
  participantId: string,
  actorRole: Role | undefined,
  userId: string,
  role: Role | undefined,
  audit: AuditContext,
) {
  for (let attempt = 1; ; attempt++) {
    const member = await getMembership(userId, participantId);
    if (!member) throw notFound(MSG.memberNotFound);
    if ((member.role === 'owner' || role === 'owner') && actorRole !== 'owner') throw forbidden(MSG.ownerOnly);
    if (role === member.role) return member;
    const done = await changeMember(participantId, member, role, audit);
    if (done.ok) return { ...member, role: role ?? member.role };
    if (done.reason === 'last_owner') throw conflict(MSG.lastOwner);
    // The member changed meanwhile (another request): decide again on what is there now.
    if (attempt >= MAX_ATTEMPTS) throw conflict(MSG.memberChanged);
    await conflictBackoff(attempt, { base: 10, cap: 200 });
  }
}
