/**
 * People (DESIGN 8.3): applications, memberships and invitations. Every write of this slice
 * is here, and each change carries its audit entry in the same transaction.
 *
 * Items
 * - application: pk `APP#<id>` / `APP`; the operator's queue on gsi2 `APPS#<status>` /
 *   `<createdAt>#<id>` (the status moves the item between queues).
 * - membership: identity/members.ts (pk `USER#<sub>` / `MEMBER#<participantId>`, team on gsi2).
 * - invitation: invitation-store.ts.
 * - the participant item counts its owners (`ownerCount`): demoting or removing an owner is
 *   conditioned on `ownerCount > 1`, in the same transaction, so two concurrent demotions can
 *   never leave a participant without an owner.
 */
import { newId } from '../domain/ids';
import { type EndedSessions, endedSessionsOf, liveEntries } from './sessions';
import { auditPut, type AuditContext } from './audit';
import { membershipKey, teamPk, teamSk, type Membership } from './members';
import type { Person } from './tokens';
import { buildParticipant, merchantEmailGuard, participantKey, putParticipantItem, type Participant } from './participant-store';
import type { Role } from './roles';
import { pinnedVersion } from '../platform/api-request';
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

export const getApplication = (id: string) => getItem<ApplicationItem>(applicationKey(id));

/** One pending application per person (DESIGN 9.1): a guard item while theirs waits for the operator. */
export const pendingApplicationKey = (sub: string) => ({ pk: `PENDINGAPP#${sub}`, sk: 'PENDINGAPP' });

/** A membership's item, with its place in the team list and the person's ended sessions (sessions.ts). */
export function membershipItem(
  sub: string,
  p: Pick<Participant, 'id' | 'type' | 'apiVersion'>,
  role: Role,
  email: string | undefined,
  joinedAt: string,
  endedSessions: EndedSessions = {},
): Membership {
  return {
    ...membershipKey(sub, p.id),
    userId: sub,
    participantId: p.id,
    participantKind: p.type,
    role,
    ...(email ? { email } : {}),
    joinedAt,
    apiVersion: pinnedVersion(p),
    gsi2pk: teamPk(p.id),
    gsi2sk: teamSk(joinedAt, sub),
    ...(Object.keys(endedSessions).length ? { endedSessions } : {}),
  };
}

/** `ownerCount` moves by `delta`; a decrease only while another owner remains. */
export function ownerCountUpdate(participantId: string, delta: number): TransactItem {
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
async function approvalItems(
  app: ApplicationItem,
  audit: AuditContext,
  now: string,
): Promise<{ participant: Participant; items: TransactItem[] }> {
  const participant = buildParticipant({ type: app.type, name: app.businessName, email: app.email, country: app.country });
  participant.ownerCount = 1;
  participant.applicationId = app.applicationId;
  const ended = liveEntries(await endedSessionsOf(app.applicantId));
  const owner = membershipItem(app.applicantId, participant, 'owner', app.applicantEmail, now, ended);
  return {
    participant,
    items: [
      putParticipantItem(participant),
      { Put: { TableName: table(), Item: owner, ConditionExpression: 'attribute_not_exists(pk)' } },
      auditPut(participant.id, audit, 'application.approved', app.applicationId),
      auditPut(participant.id, audit, 'participant.created', participant.id),
      auditPut(participant.id, audit, 'member.joined:owner', app.applicantId),
      // Merchant emails are unique across all merchants however the merchant was made.
      ...(app.type === 'merchant' ? [merchantEmailGuard(app.email, participant.id)] : []),
    ],
  };
}

/** Whether a cancelled approval failed on the merchant-email guard (the last of `items`). */
const emailTaken = (e: unknown, app: ApplicationItem, guardAt: number) =>
  app.type === 'merchant' && isTransactionCancelled(e) && cancellationCodes(e)[guardAt] === 'ConditionalCheckFailed';

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
): Promise<ApplicationItem | 'already_pending' | 'email_taken'> {
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
    const approved = await approvalItems(app, audit, now);
    Object.assign(app, { decidedAt: now, decidedBy: 'sandbox', participantId: approved.participant.id });
    items.push(...approved.items);
  } else {
    items.push({
      Put: {
        TableName: table(),
        Item: { ...pendingApplicationKey(person.sub), applicationId },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  try {
    await transact([{ Put: { TableName: table(), Item: app, ConditionExpression: 'attribute_not_exists(pk)' } }, ...items]);
  } catch (e) {
    if (!approveNow && cancellationCodes(e)[1] === 'ConditionalCheckFailed') return 'already_pending';
    if (approveNow && emailTaken(e, app, items.length)) return 'email_taken';
    throw e;
  }
  return app;
}

export type DecisionResult = { ok: true; app: ApplicationItem } | { ok: false; reason: 'not_found' | 'decided' | 'email_taken' };

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
  const extra = decision.approve ? await approvalItems(app, audit, now) : undefined;
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
      // The applicant may apply again once this one is decided.
      { Delete: { TableName: table(), Key: pendingApplicationKey(app.applicantId) } },
    ]);
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'decided' };
    // The application Update comes first, then the approval's items (the guard last of them).
    if (extra && emailTaken(e, app, extra.items.length)) return { ok: false, reason: 'email_taken' };
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
// Memberships (invitations: invitation-store.ts)

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
