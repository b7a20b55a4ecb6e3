import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getParticipant, setMaxTrustLevel } from '../../identity/participant-store';
import { trustLevelSchema } from './schemas';

const body = z.strictObject({ maxTrustLevel: trustLevelSchema });

/** PATCH /v1/operator/providers/{id}: the highest trust level the provider may grant. */
export const handler = endpoint(
  {
    body,
    bodyMessage: (err) =>
      err.issues.some((i) => i.path[0] === 'maxTrustLevel' && i.code === 'invalid_value') ? MSG.invalidTrustLevel : MSG.invalidRequest,
  },
  async ({ params, body, audit }) => {
    const provider = await getParticipant(params.id!);
    if (provider?.type !== 'provider') throw notFound(MSG.participantNotFound);
    await setMaxTrustLevel(provider.id, body.maxTrustLevel, audit);
    return ok(200, 'Provider updated', { id: provider.id, maxTrustLevel: body.maxTrustLevel });
  },
);
