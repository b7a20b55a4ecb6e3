/**
 * Invitations (DESIGN 8.3, 9.1): reads, their API shapes, the invitation e-mail, and inviting
 * (a current member's address is refused). Writes: invitation-store.ts.
 */
import { config } from '../config';
import { MSG, conflict } from '../platform/errors';
import { sendMail } from '../platform/mail';
import { batchGetByKey, getItem, itemKeyOf, queryPages } from '../platform/table';
import type { AuditContext } from './audit';
import { createInvitation, type InvitationItem, type Inviter, invitationKey, invitationsPk } from './invitation-store';
import { listTeamMembers } from './members';
import { getParticipant, type Participant } from './participant-store';
import type { Role } from './roles';

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

/** Until when an invitation can be accepted (ms). */
export const acceptableUntil = (inv: InvitationItem) => (inv.inviteExpiresAt ? Date.parse(inv.inviteExpiresAt) : inv.expiresAt * 1000);

export function stateOf(inv: InvitationItem, nowMs = Date.now()): InvitationState {
  if (inv.status === 'accepted' || inv.status === 'revoked') return inv.status;
  return acceptableUntil(inv) <= nowMs ? 'expired' : 'pending';
}

const inviterOf = (inv: InvitationItem): Inviter =>
  typeof inv.invitedBy === 'string' ? { type: 'user', userId: inv.invitedBy, email: null } : inv.invitedBy;

export const getInvitationByToken = (token: string) => getItem<InvitationItem>(invitationKey(token));

/** The participant's invitation with this id (any state), or undefined (unknown, another participant's). */
export async function findInvitation(participantId: string, invitationId: string): Promise<InvitationItem | undefined> {
  let key: { pk: string; sk: string } | undefined;
  await queryPages(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk = :id',
      ExpressionAttributeValues: { ':pk': invitationsPk(participantId), ':id': invitationId },
    },
    (items) => {
      key = items[0] as typeof key;
      return false;
    },
  );
  if (!key) return undefined;
  const inv = await getItem<InvitationItem>({ pk: key.pk, sk: key.sk });
  return inv?.participantId === participantId ? inv : undefined;
}

/** What the invited person reads before accepting (`GET /v1/invitations/{token}`). */
export function invitationView(inv: InvitationItem, participant: Pick<Participant, 'name'> | undefined) {
  return {
    invitationId: inv.invitationId,
    participantName: participant?.name ?? null,
    participantType: inv.participantKind,
    role: inv.role,
    invitedBy: { email: inviterOf(inv).email },
    email: inv.email,
    expiresAt: new Date(acceptableUntil(inv)).toISOString(),
    status: stateOf(inv),
  };
}

/** One pending invitation in the team's list. */
export function pendingView(inv: InvitationItem) {
  const by = inviterOf(inv);
  return {
    invitationId: inv.invitationId,
    email: inv.email,
    role: inv.role,
    invitedBy: { type: by.type, userId: by.userId, email: by.email },
    createdAt: inv.createdAt,
    expiresAt: new Date(acceptableUntil(inv)).toISOString(),
  };
}

/** A page of the participant's pending invitations, newest first, after the invitation `startingAfter` names. */
export async function listPendingInvitations(
  participantId: string,
  limit: number,
  startingAfter?: string,
): Promise<{ invitations: InvitationItem[]; hasMore: boolean }> {
  const keys: { pk: string; sk: string }[] = [];
  await queryPages(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: startingAfter ? 'gsi2pk = :pk AND gsi2sk < :after' : 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': invitationsPk(participantId), ...(startingAfter ? { ':after': startingAfter } : {}) },
      ScanIndexForward: false,
      Limit: 50,
    },
    (items) => {
      for (const i of items) keys.push({ pk: i.pk as string, sk: i.sk as string });
      return keys.length <= limit * 2 + 10;
    },
  );
  const found = await batchGetByKey<InvitationItem>(keys);
  const pending = keys
    .map((k) => found.get(itemKeyOf(k)))
    .filter((inv): inv is InvitationItem => inv !== undefined && stateOf(inv) === 'pending');
  return { invitations: pending.slice(0, limit), hasMore: pending.length > limit };
}

/**
 * The dashboard page the invitation e-mail links to; the invited address rides in the fragment
 * (`#email=`), which browsers never send to a server, so the sign-in form starts filled.
 */
export const invitationLink = (token: string, email: string) =>
  `${config.dashboardUrl()}/dashboard/invitations/${token}#email=${encodeURIComponent(email)}`;

/** The invitation e-mail (SES on AWS, the local outbox locally); best effort: the token is answered either way. */
export async function sendInvitationMail(
  inv: { token: string; expiresAt: string },
  to: string,
  role: Role,
  participantName: string,
  inviterEmail: string | undefined,
): Promise<boolean> {
  const link = invitationLink(inv.token, to);
  return sendMail({
    to,
    kind: 'invitation',
    link,
    subject: `You are invited to join ${participantName} on idpay`,
    text: [
      `${inviterEmail ?? 'The idpay operator'} invites you to join ${participantName} on idpay as ${role}.`,
      '',
      `Accept the invitation: ${link}`,
      '',
      `Sign in (or create an account) with this e-mail address (${to}), then accept. The invitation expires on ${inv.expiresAt}.`,
      'If you did not expect it, ignore this message.',
    ].join('\n'),
  });
}

/**
 * Invite `email` to the participant's team as `role` and e-mail them the link: a current
 * member's address is 409 `Already a member`.
 */
export async function inviteToTeam(participantId: string, kind: Participant['type'], email: string, role: Role, audit: AuditContext) {
  const address = email.toLowerCase();
  const members = await listTeamMembers(participantId);
  if (members.some((m) => m.email?.toLowerCase() === address)) throw conflict(MSG.inviteeAlreadyMember);
  const participant = await getParticipant(participantId);
  const inv = await createInvitation({ id: participantId, type: kind, apiVersion: participant?.apiVersion }, address, role, audit);
  await sendInvitationMail(inv, address, role, participant?.name ?? participantId, audit.actor.email);
  return inv;
}
