import { config } from '../../config';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, notFound } from '../../http/errors';
import {
  buildParticipant,
  getParticipant,
  merchantEmailGuard,
  newApiKey,
  putParticipantItem,
} from '../../participants/store';
import { cancellationCodes, transact } from '../../platform/table';
import { createParticipantSchema } from './schemas';
import { seedSimulatedBank } from '../../sandbox/banks';

/** POST /v1/operator/participants (DESIGN 6.1): the API key is shown only in this response. */
export const handler = endpoint({ body: createParticipantSchema }, async ({ body }) => {
  if (body.simulated && (body.type !== 'bank' || config.stage() !== 'sandbox')) {
    throw badRequest(MSG.invalidRequest, [
      { path: 'simulated', message: 'Only a bank in the sandbox stage can be simulated' },
    ]);
  }
  if (body.providerId !== undefined) {
    if (body.type !== 'merchant') {
      throw badRequest(MSG.invalidRequest, [{ path: 'providerId', message: 'Only a merchant can belong to a provider' }]);
    }
    const provider = await getParticipant(body.providerId);
    if (!provider || provider.type !== 'provider') throw notFound(MSG.participantNotFound);
  }
  const participant = buildParticipant(body);
  const key = newApiKey(participant);
  const items = [putParticipantItem(participant), ...key.items];
  if (participant.type === 'merchant') items.push(merchantEmailGuard(participant.email, participant.id));
  try {
    await transact(items);
  } catch (e) {
    if (cancellationCodes(e)[3] === 'ConditionalCheckFailed') throw conflict('Merchant with this email already exists');
    throw e;
  }
  // Sandbox: a simulated bank gets its magic customers and devices now (functions/sandbox/).
  if (participant.simulated) await seedSimulatedBank(participant);
  return ok(201, 'Participant created', {
    id: participant.id,
    type: participant.type,
    name: participant.name,
    email: participant.email,
    providerId: participant.providerId,
    ...(participant.simulated ? { simulated: true } : {}),
    apiKey: key.apiKey,
  });
});
