/**
 * People (DESIGN 8.3): applications, memberships and invitations. Every write of this slice
 * is here, and each change carries its audit entry in the same transaction.
 *
 * Items
 * - application: pk `APP#<id>` / `APP`; the operator's queue on gsi2 `APPS#<status>` /
 *   `<createdAt>#<id>` (the status moves the item between queues).
 * - membership: identity/members.ts (pk `USER#<sub>` / `MEMBER#<participantId>`, team on gsi2).
 * - invitation: pk `INVITE#<sha256(token)>` / `INVITE` (the token itself is never stored),
 *   kept 7 days (the table's TTL attribute `expiresAt`, checked on read too).
 * - the participant item counts its owners (`ownerCount`): demoting or removing an owner is
 *   conditioned on `ownerCount > 1`, in the same transaction, so two concurrent demotions can
 *   never leave a participant without an owner.
 */
import { newId, randomToken, sha256Hex } from '../domain/ids';
import { auditPut, type AuditContext } from './audit';
import { membershipKey, teamPk, teamSk, type Membership } from './members';
import type { Person } from './tokens';
import { buildParticipant, participantKey, putParticipantItem, type Participant } from './participant-store';
import type { Role } from './roles';
import {
  cancellationCodes,
  getItem,
  isTransactionCancelled,
  nowIso,
  queryPage,
  table,
  transact,
  type TransactItem,
} from '../platform/table';

export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** The invitation token's prefix; domain/secrets.ts knows it, so a response carrying one is sealed at rest. */
export const INVITATION_TOKEN_PREFIX = 'idpinv_';

export type ApplicationStatus = 'pending' | 'approved' | 'rejected';

export interface ApplicationInput {
  type: 'merchant' | 'provider';
  businessName: string;
  email: string;
  country: string;
  registrationNumber: string;
  website?: string;
  address: { line1: string; city: string; country: string };
}

export interface ApplicationItem extends ApplicationInput {
  pk: string;
  sk: string;
  applicationId: string;
  status: ApplicationStatus;
  applicantId: string;
  applicantEmail?: string;
  createdAt: string;
  decidedAt?: string;
  decidedBy?: string;
  reason?: string;
  participantId?: string;
  gsi2pk: string;
  gsi2sk: string;
  [extra: string]: unknown;
}

export const applicationKey = (id: string) => ({ pk: `APP#${id}`, sk: 'APP' });
export const applicationsPk = (status: ApplicationStatus) => `APPS#${status}`;
export const invitationKey = (token: string) => ({ pk: `INVITE#${sha256Hex(token)}`, sk: 'INVITE' });

export const getApplication = (id: string) => getItem<ApplicationItem>(applicationKey(id));

/** A membership's item, with its place in the team list. */
function membershipItem(
  sub: string,
  p: Pick<Participant, 'id' | 'type'>,
  role: Role,
  email: string | undefined,
  joinedAt: string,
): Membership {
  return {
    ...membershipKey(sub, p.id),
    userId: sub,
    participantId: p.id,
    participantKind: p.type,
    role,
    ...(email ? { email } : {}),
    joinedAt,
    gsi2pk: teamPk(p.id),
    gsi2sk: teamSk(joinedAt, sub),
  };
}

/** `ownerCount` moves by `delta`; a decrease only while another owner remains. */
function ownerCountUpdate(participantId: string, delta: number): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: participantKey(participantId),
      UpdateExpression: 'ADD ownerCount :d',
      ConditionExpression: delta < 0 ? 'attribute_exists(pk) AND ownerCount > :one' : 'attribute_exists(pk)',
      ExpressionAttributeValues: delta < 0 ? { ':d': delta, ':one': 1 } : { ':d': delta },
    },
  };
}

/** The items that create the participant of an approved application, its owner being the applicant. */
function approvalItems(
  app: ApplicationItem,
  _decidedBy: string,
  audit: AuditContext,
  now: string,
): { participant: Participant; items: TransactItem[] } {
  const participant = buildParticipant({ type: app.type, name: app.businessName, email: app.email, country: app.country });
  participant.ownerCount = 1;
  participant.applicationId = app.applicationId;
  const owner = membershipItem(app.applicantId, participant, 'owner', app.applicantEmail, now);
  return {
    participant,
    items: [
      putParticipantItem(participant),
      { Put: { TableName: table(), Item: owner, ConditionExpression: 'attribute_not_exists(pk)' } },
      auditPut(participant.id, audit, 'application.approved', app.applicationId),
    ],
  };
}

/**
 * A person's application. The sandbox approves at once (the participant and the applicant's
 * owner membership in the same transaction); live waits for the operator.
 */
export async function createApplication(
  person: Person,
  applicantEmail: string | undefined,
  input: ApplicationInput,
  approveNow: boolean,
  audit: AuditContext,
): Promise<ApplicationItem> {
  const applicationId = newId('app');
  const now = nowIso();
  const status: ApplicationStatus = approveNow ? 'approved' : 'pending';
  const app: ApplicationItem = {
    ...applicationKey(applicationId),
    ...input,
    applicationId,
    status,
    applicantId: person.sub,
    ...(applicantEmail ? { applicantEmail } : {}),
    createdAt: now,
    gsi2pk: applicationsPk(status),
    gsi2sk: `${now}#${applicationId}`,
  };
  const items: TransactItem[] = [];
  if (approveNow) {
    const approved = approvalItems(app, 'sandbox', audit, now);
    Object.assign(app, { decidedAt: now, decidedBy: 'sandbox', participantId: approved.participant.id });
    items.push(...approved.items);
  }
  await transact([{ Put: { TableName: table(), Item: app, ConditionExpression: 'attribute_not_exists(pk)' } }, ...items]);
  return app;
}

export type DecisionResult = { ok: true; app: ApplicationItem } | { ok: false; reason: 'not_found' | 'decided' };

/** The operator's decision on a pending application, recorded with who and when. */
export async function decideApplication(
  id: string,
  decision: { approve: true } | { approve: false; reason: string },
  audit: AuditContext,
): Promise<DecisionResult> {
  const app = await getApplication(id);
  if (!app) return { ok: false, reason: 'not_found' };
  if (app.status !== 'pending') return { ok: false, reason: 'decided' };
  const now = nowIso();
  const status: ApplicationStatus = decision.approve ? 'approved' : 'rejected';
  const decidedBy = audit.actor.id;
  const extra = decision.approve ? approvalItems(app, decidedBy, audit, now) : undefined;
  const names: Record<string, string> = { '#s': 'status' };
  const values: Record<string, unknown> = {
    ':s': status,
    ':pending': 'pending',
    ':at': now,
    ':by': decidedBy,
    ':q': applicationsPk(status),
  };
  let set = 'SET #s = :s, decidedAt = :at, decidedBy = :by, gsi2pk = :q';
  if (extra) {
    set += ', participantId = :p';
    values[':p'] = extra.participant.id;
  } else {
    set += ', reason = :r';
    values[':r'] = (decision as { reason: string }).reason;
  }
  try {
    await transact([
      {
        Update: {
          TableName: table(),
          Key: applicationKey(id),
          UpdateExpression: set,
          ConditionExpression: '#s = :pending',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      ...(extra?.items ?? []),
    ]);
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'decided' };
    throw e;
  }
  return { ok: true, app: (await getApplication(id))! };
}

/** A page of applications in one status, oldest first (a queue), after the application `after` names. */
export async function listApplications(status: ApplicationStatus, limit: number, after?: ApplicationItem) {
  const { items } = await queryPage({
    IndexName: 'gsi2',
    KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk > :after' : 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': applicationsPk(status), ...(after ? { ':after': after.gsi2sk } : {}) },
    Limit: limit + 1,
  });
  return { applications: (items as ApplicationItem[]).slice(0, limit), hasMore: items.length > limit };
}

// ---------------------------------------------------------------------------------------
// Invitations and memberships

export interface InvitationItem {
  pk: string;
  sk: string;
  invitationId: string;
  participantId: string;
  participantKind: Participant['type'];
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  /** Epoch seconds: the table's TTL attribute. */
  expiresAt: number;
  [extra: string]: unknown;
}

/** A new invitation; the token is returned once and only its hash is kept. */
export async function createInvitation(
  participant: Pick<Participant, 'id' | 'type'>,
  email: string,
  role: Role,
  audit: AuditContext,
): Promise<{ invitationId: string; token: string; items: TransactItem[] }> {
  const token = `${INVITATION_TOKEN_PREFIX}${randomToken(32)}`;
  const invitationId = newId('ivt');
  const item: InvitationItem = {
    ...invitationKey(token),
    invitationId,
    participantId: participant.id,
    participantKind: participant.type,
    email: email.toLowerCase(),
    role,
    invitedBy: audit.actor.id,
    createdAt: nowIso(),
    expiresAt: Math.floor(Date.now() / 1000) + INVITATION_TTL_SECONDS,
  };
  return {
    invitationId,
    token,
    items: [
      { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      auditPut(participant.id, audit, `invitation.created:${role}`, invitationId),
    ],
  };
}

/** Invite someone to a participant's team now. */
export async function invite(participant: Pick<Participant, 'id' | 'type'>, email: string, role: Role, audit: AuditContext) {
  const inv = await createInvitation(participant, email, role, audit);
  await transact(inv.items);
  return { invitationId: inv.invitationId, token: inv.token };
}

export async function getInvitation(token: string): Promise<InvitationItem | undefined> {
  const inv = await getItem<InvitationItem>(invitationKey(token));
  return inv && inv.expiresAt > Date.now() / 1000 ? inv : undefined;
}

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
  const m = membershipItem(person.sub, { id: inv.participantId, type: inv.participantKind }, inv.role, email, now);
  try {
    await transact([
      { Delete: { TableName: table(), Key: invitationKey(token), ConditionExpression: 'attribute_exists(pk)' } },
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

export type MemberChange = { ok: true } | { ok: false; reason: 'not_found' | 'last_owner' | 'changed' };

/**
 * Change a member's role (`role`), or remove them (`role` undefined). Conditioned on the role
 * read, and on another owner remaining when an owner stops being one.
 */
export async function changeMember(
  participantId: string,
  member: Membership,
  role: Role | undefined,
  audit: AuditContext,
): Promise<MemberChange> {
  const key = membershipKey(member.userId, participantId);
  const names = { '#r': 'role' };
  const cond = { ConditionExpression: 'attribute_exists(pk) AND #r = :old', ExpressionAttributeNames: names };
  const items: TransactItem[] = [
    role
      ? {
          Update: {
            TableName: table(),
            Key: key,
            UpdateExpression: 'SET #r = :new',
            ...cond,
            ExpressionAttributeValues: { ':old': member.role, ':new': role },
          },
        }
      : { Delete: { TableName: table(), Key: key, ...cond, ExpressionAttributeValues: { ':old': member.role } } },
    auditPut(participantId, audit, role ? `member.role_changed:${member.role}->${role}` : `member.removed:${member.role}`, member.userId),
  ];
  const wasOwner = member.role === 'owner';
  const isOwner = role === 'owner';
  if (wasOwner !== isOwner) items.push(ownerCountUpdate(participantId, isOwner ? +1 : -1));
  try {
    await transact(items);
  } catch (e) {
    const codes = cancellationCodes(e);
    if (codes[2] === 'ConditionalCheckFailed') return { ok: false, reason: 'last_owner' };
    // The member changed meanwhile, or another transaction held one of the items: decide again.
    if (codes[0] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict')) return { ok: false, reason: 'changed' };
    throw e;
  }
  return { ok: true };
}
