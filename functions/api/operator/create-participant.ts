import { config } from '../../config';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, notFound } from '../../platform/errors';
import { buildParticipant, getParticipant, insertParticipant, newApiKey } from '../../identity/participant-store';
import { createParticipantSchema } from './schemas';
import { seedSimulatedBank } from '../../sandbox/bank-store';
import { auditPut } from '../../identity/audit';
import { newInvitation } from '../../identity/invitation-store';
import { sendInvitationMail } from '../../identity/invitations';

/** POST /v1/operator/participants (DESIGN 6.1): the API key is shown only in this response. */
export const handler = endpoint({ body: createParticipantSchema }, async ({ body, audit }) => {
  if (body.simulated && (body.type !== 'bank' || config.stage() !== 'sandbox')) {
    throw badRequest(MSG.invalidRequest, [{ path: 'simulated', message: 'Only a bank in the sandbox stage can be simulated' }]);
  }
  if (body.providerId !== undefined) {
    if (body.type !== 'merchant') {
      throw badRequest(MSG.invalidRequest, [{ path: 'providerId', message: 'Only a merchant can belong to a provider' }]);
    }
    const provider = await getParticipant(body.providerId);
    if (provider?.type !== 'provider') throw notFound(MSG.participantNotFound);
  }
  const participant = buildParticipant(body);
  const key = newApiKey(participant);
  // DESIGN 8.3: `ownerEmail` invites the participant's first owner (a bank's people sign in this way).
  const invitation = body.ownerEmail ? newInvitation(participant, body.ownerEmail, 'owner', audit) : undefined;
  const items = [
    ...key.items,
    auditPut(participant.id, audit, 'participant.created', participant.id),
    auditPut(participant.id, audit, 'api_key.created', key.keyId),
    ...(invitation?.items ?? []),
  ];
  if ((await insertParticipant(participant, items)) === 'email_taken') throw conflict(MSG.merchantEmailExists);
  // Sandbox: a simulated bank gets its magic customers and devices now (functions/sandbox/).
  if (participant.simulated) await seedSimulatedBank(participant);
  if (invitation) await sendInvitationMail(invitation, body.ownerEmail!.toLowerCase(), 'owner', participant.name, undefined);
  return ok(201, 'Participant created', {
    id: participant.id,
    type: participant.type,
    name: participant.name,
    email: participant.email,
    providerId: participant.providerId,
    ...(participant.simulated ? { simulated: true } : {}),
    apiVersion: participant.apiVersion,
    apiKey: key.apiKey,
    ...(invitation ? { invitation: { invitationId: invitation.invitationId, token: invitation.token } } : {}),
  });
});
