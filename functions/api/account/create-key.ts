import { endpoint, ok } from '../../http/endpoint';
import { createKeyFor } from '../../identity/participant-store';
import { defaultKeyRole, outranks } from '../../identity/roles';
import { MSG, forbidden } from '../../platform/errors';
import { createKeySchema } from './schemas';

/**
 * POST /v1/keys (person; owner, admin, developer): a new key, shown only in this response. It
 * acts with `role` (default the creator's own; an owner's key is `admin`), never above the
 * creator's (DESIGN 9.1), and records who made it.
 */
export const handler = endpoint(
  {
    body: createKeySchema,
    description:
      'Create an API key with a role (default your own; never above it), optionally expiring after `expiresInDays`. The key is shown only in this response.',
  },
  async ({ body, principal, person, audit }) => {
    const creator = principal.role!;
    const role = body.role ?? defaultKeyRole(creator);
    if (outranks(role, creator)) throw forbidden(MSG.insufficientRole);
    const p = principal.kind as 'bank' | 'merchant' | 'provider';
    const createdBy = { userId: person!.sub, email: principal.actor.email ?? null };
    const key = await createKeyFor({ id: principal.id, type: p, apiVersion: principal.apiVersion }, audit, { ...body, role, createdBy });
    return ok(201, 'API key created', { keyId: key.keyId, apiKey: key.apiKey, expiresAt: key.keyExpiresAt ?? null, role });
  },
);
