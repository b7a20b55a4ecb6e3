import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { createKeyFor, getParticipant } from '../../identity/participant-store';

/** POST /v1/operator/participants/{id}/keys: a new key (the old ones stay valid until revoked). */
export const handler = endpoint({}, async ({ params, audit }) => {
  const participant = await getParticipant(params.id!);
  if (!participant) throw notFound(MSG.participantNotFound);
  const key = await createKeyFor(participant, audit);
  return ok(201, 'API key created', { keyId: key.keyId, participantId: participant.id, apiKey: key.apiKey });
});
