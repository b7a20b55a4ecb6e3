import { endpoint, ok } from '../../http/endpoint';
import { createKeyFor } from '../../identity/participant-store';
import { createKeySchema } from './schemas';

/** POST /v1/keys (person; owner, admin, developer): a new key, shown only in this response. */
export const handler = endpoint(
  {
    body: createKeySchema,
    description: 'Create an API key, optionally expiring after `expiresInDays`. The key is shown only in this response.',
  },
  async ({ body, principal, audit }) => {
    const p = principal.kind as 'bank' | 'merchant' | 'provider';
    const key = await createKeyFor({ id: principal.id, type: p }, audit, body);
    return ok(201, 'API key created', { keyId: key.keyId, apiKey: key.apiKey, expiresAt: key.keyExpiresAt ?? null });
  },
);
