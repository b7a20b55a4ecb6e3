import { config, type Stage } from '../config';
import { newApiKeyToken } from '../domain/api-keys';
import { newId, sha256Hex } from '../domain/ids';
import type { TrustLevel } from '../domain/trust';
import type { ParticipantKind } from '../routes';
import { cancellationCodes, getItem, nowIso, transact, type TransactItem, table, UpdateCommand, isConditionFailure } from '../platform/table';
import { db } from '../platform/clients';

/** Trust levels and their order live in domain/trust.ts (one place); re-exported here. */
export type { TrustLevel } from '../domain/trust';

export interface BankAccount {
  bankName: string | null;
  accountNumber: string | null;
  accountName: string | null;
}

export interface Participant {
  pk: string;
  sk: string;
  id: string;
  type: Exclude<ParticipantKind, 'operator'>;
  name: string;
  email: string;
  phone?: string;
  country?: string;
  providerId?: string;
  bankAccount?: BankAccount;
  /** provider: highest trust level it may grant. */
  maxTrustLevel?: TrustLevel;
  /** bank: answered by the sandbox simulator. */
  simulated?: boolean;
  createdAt: string;
  updatedAt: string;
  [extra: string]: unknown;
}

export interface ApiKeyItem {
  pk: string;
  sk: string;
  keyId: string;
  participantId: string;
  kind: Exclude<ParticipantKind, 'operator'>;
  stage: Stage;
  createdAt: string;
  revokedAt?: string;
  [extra: string]: unknown;
}

export const participantKey = (id: string) => ({ pk: `PART#${id}`, sk: 'PROFILE' });
export const apiKeyKey = (hash: string) => ({ pk: `APIKEY#${hash}`, sk: 'KEY' });
export const keyIdKey = (keyId: string) => ({ pk: `KEYID#${keyId}`, sk: 'KEY' });

const ID_PREFIX: Record<Participant['type'], string> = { bank: 'bnk', merchant: 'mer', provider: 'prv' };

export const getParticipant = (id: string) => getItem<Participant>(participantKey(id));

export function newParticipantId(type: Participant['type']): string {
  return newId(ID_PREFIX[type]);
}

/** A new API key for the current stage, its id, and the items that store it (hash only). */
export function newApiKey(participant: Pick<Participant, 'id' | 'type'>): {
  apiKey: string;
  keyId: string;
  items: TransactItem[];
} {
  const stage = config.stage();
  const apiKey = newApiKeyToken(stage);
  const keyId = newId('key');
  const hash = sha256Hex(apiKey);
  const createdAt = nowIso();
  const keyItem: ApiKeyItem = {
    ...apiKeyKey(hash),
    keyId,
    participantId: participant.id,
    kind: participant.type,
    stage,
    createdAt,
  };
  return {
    apiKey,
    keyId,
    items: [
      { Put: { TableName: table(), Item: keyItem, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: table(),
          Item: { ...keyIdKey(keyId), hash, participantId: participant.id, createdAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
  };
}

/** Put a participant item (no condition on a new random id beyond non-existence). */
export function putParticipantItem(p: Participant): TransactItem {
  return { Put: { TableName: table(), Item: p, ConditionExpression: 'attribute_not_exists(pk)' } };
}

export async function createKeyFor(participant: Participant) {
  const key = newApiKey(participant);
  await transact(key.items);
  return { keyId: key.keyId, apiKey: key.apiKey };
}

/** Revoke a key at once. Returns false when the key id is unknown. */
export async function revokeKey(keyId: string): Promise<{ keyId: string; participantId: string; revokedAt: string } | undefined> {
  const ref = await getItem<{ hash: string; participantId: string }>(keyIdKey(keyId));
  if (!ref) return undefined;
  const revokedAt = nowIso();
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: apiKeyKey(ref.hash),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :t)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': revokedAt },
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
  return { keyId, participantId: ref.participantId, revokedAt };
}

export { TRUST_LEVELS, trustRank } from '../domain/trust';

/** A uniqueness guard item: a merchant email is unique across all merchants. */
export const merchantEmailKey = (email: string) => ({ pk: `UNIQ#MEMAIL#${email.trim().toLowerCase()}`, sk: 'UNIQ' });

export function merchantEmailGuard(email: string, merchantId: string): TransactItem {
  return {
    Put: {
      TableName: table(),
      Item: { ...merchantEmailKey(email), merchantId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export interface NewParticipantInput {
  type: Participant['type'];
  name: string;
  email: string;
  phone?: string;
  country?: string;
  providerId?: string;
  bankAccount?: Partial<BankAccount>;
  simulated?: boolean;
  /** Extra stored fields (merchant profile fields). */
  extra?: Record<string, unknown>;
}

/** Build a participant item with the defaults of its type (DESIGN 6.9: new merchants are untrusted basic). */
export function buildParticipant(input: NewParticipantInput, id = newParticipantId(input.type)): Participant {
  const now = nowIso();
  const p: Participant = {
    ...participantKey(id),
    id,
    type: input.type,
    name: input.name,
    email: input.email,
    phone: input.phone,
    country: input.country,
    createdAt: now,
    updatedAt: now,
    ...input.extra,
  };
  if (input.bankAccount) {
    p.bankAccount = {
      bankName: input.bankAccount.bankName ?? null,
      accountNumber: input.bankAccount.accountNumber ?? null,
      accountName: input.bankAccount.accountName ?? null,
    };
  }
  if (input.type === 'merchant') {
    Object.assign(p, { trusted: false, trustLevel: 'basic', deviceLookupEnabled: false });
    if (input.providerId) {
      p.providerId = input.providerId;
      Object.assign(p, { gsi2pk: `PROV#${input.providerId}#MERCHANTS`, gsi2sk: `${now}#${id}` });
    }
  }
  if (input.type === 'provider') p.maxTrustLevel = 'enhanced';
  if (input.type === 'bank' && input.simulated) p.simulated = true;
  return p;
}

/**
 * Store a new participant with its first API key's items (and, for a merchant, the guard
 * that keeps merchant emails unique) in one transaction; 'email_taken' when a merchant with
 * this email exists already.
 */
export async function insertParticipant(p: Participant, keyItems: TransactItem[]): Promise<'created' | 'email_taken'> {
  const items = [putParticipantItem(p), ...keyItems];
  const guardAt = items.length;
  if (p.type === 'merchant') items.push(merchantEmailGuard(p.email, p.id));
  try {
    await transact(items);
    return 'created';
  } catch (e) {
    if (p.type === 'merchant' && cancellationCodes(e)[guardAt] === 'ConditionalCheckFailed') return 'email_taken';
    throw e;
  }
}

/** The highest trust level a provider may grant (operator). */
export async function setMaxTrustLevel(providerId: string, maxTrustLevel: TrustLevel): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: table(),
      Key: participantKey(providerId),
      UpdateExpression: 'SET maxTrustLevel = :m, updatedAt = :u',
      ExpressionAttributeValues: { ':m': maxTrustLevel, ':u': nowIso() },
    }),
  );
}
