/**
 * Invitations to a participant's team (DESIGN 8.3, 9.1): every write, each with its audit
 * entry in the same transaction. Reads and the e-mail: invitations.ts.
 *
 * Item: pk `INVITE#<sha256(token)>` / `INVITE` (the token itself is never stored); `status`
 * pending -> accepted | revoked; valid until `inviteExpiresAt` (7 days), after which accepting
 * is 410; the table's TTL attribute `expiresAt` removes it 30 days after that. A pending
 * invitation is listed on gsi2 `INVITES#<participantId>` / `<invitationId>` (time-ordered ids:
 * newest first), which an accepted or revoked one leaves.
 */
import { newId, randomToken, sha256Hex } from '../domain/ids';
import { cancellationCodes, nowIso, table, transact, type TransactItem } from '../platform/table';
import { auditPut, type AuditContext } from './audit';
import type { Membership } from './members';
import { membershipItem, ownerCountUpdate } from './people-store';
import type { Participant } from './participant-store';
import type { Role } from './roles';
import { pinnedVersion } from '../platform/api-request';
import { endedSessionsOf, liveEntries } from './sessions';
import type { Person } from './tokens';

/** How long an invitation can be accepted (DESIGN 9.1). */
export const INVITATION_VALID_SECONDS = 7 * 24 * 3600;
/** How long an invitation item stays after that (an expired one answers 410, then 404). */
const KEEP_AFTER_SECONDS = 30 * 24 * 3600;
/** The invitation token's prefix; domain/secrets.ts knows it, so a response carrying one is sealed at rest. */
export const INVITATION_TOKEN_PREFIX = 'idpinv_';

export type InvitationStatus = 'pending' | 'accepted' | 'revoked';

export interface Inviter {
  type: 'user' | 'apiKey' | 'operator';
  userId: string | null;
  email: string | null;
}

export interface InvitationItem {
  pk: string;
  sk: string;
  invitationId: string;
  participantId: string;
  participantKind: Participant['type'];
  /** The participant's pinned API version, for the membership the invitation makes. */
  apiVersion?: string;
  email: string;
  role: Role;
  /** Who invited: an object; invitations made before it held the actor's id only. */
  invitedBy: Inviter | string;
  createdAt: string;
  /** ISO: until when it can be accepted (absent on invitations made before: `expiresAt` was that time). */
  inviteExpiresAt?: string;
  /** Absent: pending (invitations made before statuses were deleted when used). */
  status?: InvitationStatus;
  /** Epoch seconds: the table's TTL attribute. */
  expiresAt: number;
  gsi2pk?: string;
  gsi2sk?: string;
  [extra: string]: unknown;
}

export const invitationKey = (token: string) => ({ pk: `INVITE#${sha256Hex(token)}`, sk: 'INVITE' });
export const invitationsPk = (participantId: string) => `INVITES#${participantId}`;

/** A new invitation's items; the token is returned once and only its hash is kept. */
export function newInvitation(
  participant: Pick<Participant, 'id' | 'type' | 'apiVersion'>,
  email: string,
  role: Role,
  audit: AuditContext,
): { invitationId: string; token: string; expiresAt: string; items: TransactItem[] } {
  const token = `${INVITATION_TOKEN_PREFIX}${randomToken(32)}`;
  const invitationId = newId('ivt');
  const validUntil = Math.floor(Date.now() / 1000) + INVITATION_VALID_SECONDS;
  const expiresAt = new Date(validUntil * 1000).toISOString();
  const { actor } = audit;
  const item: InvitationItem = {
    ...invitationKey(token),
    invitationId,
    participantId: participant.id,
    participantKind: participant.type,
    apiVersion: pinnedVersion(participant),
    email: email.toLowerCase(),
    role,
    invitedBy: { type: actor.type, userId: actor.type === 'user' ? actor.id : null, email: actor.email ?? null },
    createdAt: nowIso(),
    inviteExpiresAt: expiresAt,
    status: 'pending',
    expiresAt: validUntil + KEEP_AFTER_SECONDS,
    gsi2pk: invitationsPk(participant.id),
    gsi2sk: invitationId,
  };
  return {
    invitationId,
    token,
    expiresAt,
    items: [
      { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      auditPut(participant.id, audit, `invitation.created:${role}`, invitationId),
    ],
  };
}

/** Store a new invitation now. */
export async function createInvitation(
  participant: Pick<Participant, 'id' | 'type' | 'apiVersion'>,
  email: string,
  role: Role,
  audit: AuditContext,
) {
  const inv = newInvitation(participant, email, role, audit);
  await transact(inv.items);
  return inv;
}

const PENDING = 'attribute_exists(pk) AND (attribute_not_exists(#st) OR #st = :pending)';

export type AcceptResult = { ok: true; membership: Membership } | { ok: false; reason: 'not_found' | 'already_member' };

/** The person joins with the invitation's role; the invitation is used up in the same transaction. */
export async function acceptInvitation(
  token: string,
  inv: InvitationItem,
  person: Person,
  email: string | undefined,
  audit: AuditContext,
): Promise<AcceptResult> {
  const now = nowIso();
  const ended = liveEntries(await endedSessionsOf(person.sub));
  const m = membershipItem(
    person.sub,
    { id: inv.participantId, type: inv.participantKind, apiVersion: inv.apiVersion },
    inv.role,
    email,
    now,
    ended,
  );
  try {
    await transact([
      {
        Update: {
          TableName: table(),
          Key: invitationKey(token),
          UpdateExpression: 'SET #st = :accepted, acceptedAt = :now, acceptedBy = :sub REMOVE gsi2pk, gsi2sk',
          ConditionExpression: PENDING,
          ExpressionAttributeNames: { '#st': 'status' },
          ExpressionAttributeValues: { ':accepted': 'accepted', ':pending': 'pending', ':now': now, ':sub': person.sub },
        },
      },
      { Put: { TableName: table(), Item: m, ConditionExpression: 'attribute_not_exists(pk)' } },
      auditPut(inv.participantId, audit, `member.joined:${inv.role}`, person.sub),
      ...(inv.role === 'owner' ? [ownerCountUpdate(inv.participantId, +1)] : []),
    ]);
  } catch (e) {
    const codes = cancellationCodes(e);
    if (codes[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'not_found' };
    if (codes[1] === 'ConditionalCheckFailed') return { ok: false, reason: 'already_member' };
    throw e;
  }
  return { ok: true, membership: m };
}

/** Withdraw a pending invitation (false when it is no longer pending). */
export async function revokeInvitation(inv: InvitationItem, audit: AuditContext): Promise<boolean> {
  try {
    await transact([
      {
        Update: {
          TableName: table(),
          Key: { pk: inv.pk, sk: inv.sk },
          UpdateExpression: 'SET #st = :revoked, revokedAt = :now REMOVE gsi2pk, gsi2sk',
          ConditionExpression: PENDING,
          ExpressionAttributeNames: { '#st': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':pending': 'pending', ':now': nowIso() },
        },
      },
      auditPut(inv.participantId, audit, 'invitation.revoked', inv.invitationId),
    ]);
    return true;
  } catch (e) {
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}
