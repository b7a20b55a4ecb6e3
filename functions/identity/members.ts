/**
 * Memberships (DESIGN 8.3): a person (Cognito `sub`) belongs to participants, each with a
 * role. Read here (the pipeline resolves a token's person to a participant and role); written
 * only by functions/identity/people-store.ts.
 *
 * Item: pk `USER#<sub>`, sk `MEMBER#<participantId>`: one GetItem answers "may this person act
 * for this participant, and as what"; a person's memberships are one Query on their own
 * partition. The team of a participant is on gsi2: `TEAM#<participantId>` / `<joinedAt>#<sub>`.
 * The pipeline also keeps the person's rate-limit window on this item (functions/http/auth.ts),
 * as it does on an API key's.
 */
import type { ParticipantKind } from '../routes';
import type { Role } from './roles';
import { getItem, queryAll, queryPage, type Item } from '../platform/table';
import type { EndedSessions } from './sessions';

export interface Membership extends Item {
  pk: string;
  sk: string;
  userId: string;
  participantId: string;
  participantKind: Exclude<ParticipantKind, 'operator'>;
  role: Role;
  email?: string;
  joinedAt: string;
  /** The participant's pinned API version (copied at joining: authenticating reads it with the membership). */
  apiVersion?: string;
  /** Sessions of this person that have ended (identity/sessions.ts), copied on every membership. */
  endedSessions?: EndedSessions;
}

export const membershipKey = (sub: string, participantId: string) => ({ pk: `USER#${sub}`, sk: `MEMBER#${participantId}` });
export const teamPk = (participantId: string) => `TEAM#${participantId}`;
export const teamSk = (joinedAt: string, sub: string) => `${joinedAt}#${sub}`;

export const getMembership = (sub: string, participantId: string) => getItem<Membership>(membershipKey(sub, participantId));

/** Up to `limit` of a person's memberships (the pipeline asks for 2: none, one, or several). */
export async function membershipsOf(sub: string, limit: number): Promise<Membership[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
    ExpressionAttributeValues: { ':pk': `USER#${sub}`, ':m': 'MEMBER#' },
    Limit: limit,
    ConsistentRead: true,
  });
  return items as Membership[];
}

/** The roles a person holds, one per membership (one Query of their own partition, roles only). */
export async function rolesOf(sub: string): Promise<Role[]> {
  const items = await queryAll<Pick<Membership, 'pk' | 'sk' | 'role'>>({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
    ExpressionAttributeValues: { ':pk': `USER#${sub}`, ':m': 'MEMBER#' },
    ProjectionExpression: 'pk, sk, #r',
    ExpressionAttributeNames: { '#r': 'role' },
  });
  return items.map((m) => m.role);
}

/** A page of a participant's team, newest member first (DESIGN 8), after the member `startingAfter` names. */
export async function listTeam(
  participantId: string,
  limit: number,
  after?: Membership,
): Promise<{ members: Membership[]; hasMore: boolean }> {
  const { items } = await queryPage({
    IndexName: 'gsi2',
    KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk < :after' : 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': teamPk(participantId), ...(after ? { ':after': teamSk(after.joinedAt, after.userId) } : {}) },
    ScanIndexForward: false,
    Limit: limit + 1,
  });
  return { members: (items as Membership[]).slice(0, limit), hasMore: items.length > limit };
}

/** Every member of a participant's team (a team is small: people, not customers). */
export async function listTeamMembers(participantId: string): Promise<Membership[]> {
  return queryAll<Membership>({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': teamPk(participantId) },
  });
}
