import { config, type Stage } from '../config';
import { keyWorks, newApiKeyToken, type ParticipantStatus } from '../domain/api-keys';
import { newId, sha256Hex } from '../domain/ids';
import type { TrustLevel } from '../domain/trust';
import type { ParticipantKind } from '../routes';
import {
  batchGet,
  cancellationCodes,
  getItem,
  nowIso,
  queryAll,
  queryPages,
  queryPage,
  transact,
  type Item,
  type TransactItem,
  table,
} from '../platform/table';
import { auditPut, type AuditContext } from './audit';
import { currentApiVersion, pinnedVersion } from '../platform/api-request';
import { keyRoleOf, type KeyRole } from './roles';

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
  /** merchant: its retry policy for failed recurring runs (DESIGN 8.6); absent = the default. */
  retryAfterDays?: number[];
  /** bank: answered by the sandbox simulator. */
  simulated?: boolean;
  /** The API version the participant is pinned at (the current one when it was created; absent before pinning: the first). */
  apiVersion?: string;
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
  /** When the key stops working (DESIGN 8.3; ISO). Not `expiresAt`: that is the table's TTL attribute. */
  keyExpiresAt?: string;
  lastUsedAt?: string;
  /** The role the key acts with (DESIGN 9.1); absent on keys made before roles: `admin` (roles.ts keyRoleOf). */
  role?: KeyRole;
  /** Its participant's pinned API version, copied here so that authenticating reads it with the key (no extra request). */
  apiVersion?: string;
  [extra: string]: unknown;
}

/** Who made a key (a person; null for the operator's and a provider's keys). */
export interface KeyCreator {
  userId: string;
  email: string | null;
}

export const participantKey = (id: string) => ({ pk: `PART#${id}`, sk: 'PROFILE' });
export const apiKeyKey = (hash: string) => ({ pk: `APIKEY#${hash}`, sk: 'KEY' });
export const keyIdKey = (keyId: string) => ({ pk: `KEYID#${keyId}`, sk: 'KEY' });

const ID_PREFIX: Record<Participant['type'], string> = { bank: 'bnk', merchant: 'mer', provider: 'prv' };

export const getParticipant = (id: string) => getItem<Participant>(participantKey(id));

/** The names of a page's participants (merchants beside their ids): one BatchGetItem (per 100), only `name` read. */
export async function participantNames(ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const found = await batchGet<Pick<Participant, 'id' | 'name'> & Item>([...new Set(ids)].map(participantKey), ['id', 'name']);
  return new Map([...found.values()].map((p) => [p.id, p.name]));
}

export function newParticipantId(type: Participant['type']): string {
  return newId(ID_PREFIX[type]);
}

export interface KeyOptions {
  name?: string;
  /** The key stops working this many days after creation (DESIGN 8.3). */
  expiresInDays?: number;
  /** Default `admin` (the operator's and a provider's keys). */
  role?: KeyRole;
  createdBy?: KeyCreator;
}

/** What a key list shows of a key (never the key): the stage prefix and its first 4 characters. */
export const keyPrefix = (apiKey: string) => apiKey.slice(0, apiKey.indexOf('_', 3) + 5);

/** A participant's keys, newest first, on gsi2 (`KEYS#<participantId>` / `<createdAt>#<keyId>`). */
export const keysPk = (participantId: string) => `KEYS#${participantId}`;

/** The key id item: the key's public facts (no hash of anything secret beyond the lookup hash). */
export interface KeyRefItem {
  pk: string;
  sk: string;
  hash: string;
  keyId: string;
  participantId: string;
  name?: string;
  prefix?: string;
  createdAt: string;
  keyExpiresAt?: string;
  revokedAt?: string;
  role?: KeyRole;
  createdBy?: KeyCreator;
  [extra: string]: unknown;
}

/** A new API key for the current stage, its id, and the items that store it (hash only). */
export function newApiKey(
  participant: Pick<Participant, 'id' | 'type' | 'apiVersion'>,
  opts: KeyOptions = {},
): {
  apiKey: string;
  keyId: string;
  keyExpiresAt?: string;
  items: TransactItem[];
} {
  const stage = config.stage();
  const apiKey = newApiKeyToken(stage);
  const keyId = newId('key');
  const hash = sha256Hex(apiKey);
  const createdAt = nowIso();
  const keyExpiresAt = opts.expiresInDays ? nowIso(Date.parse(createdAt) + opts.expiresInDays * 86_400_000) : undefined;
  const role = opts.role ?? 'admin';
  const keyItem: ApiKeyItem = {
    ...apiKeyKey(hash),
    keyId,
    participantId: participant.id,
    kind: participant.type,
    stage,
    createdAt,
    role,
    apiVersion: pinnedVersion(participant),
    ...(keyExpiresAt ? { keyExpiresAt } : {}),
  };
  const ref: KeyRefItem = {
    ...keyIdKey(keyId),
    hash,
    keyId,
    participantId: participant.id,
    ...(opts.name ? { name: opts.name } : {}),
    prefix: keyPrefix(apiKey),
    createdAt,
    role,
    ...(opts.createdBy ? { createdBy: opts.createdBy } : {}),
    ...(keyExpiresAt ? { keyExpiresAt } : {}),
    gsi2pk: keysPk(participant.id),
    gsi2sk: `${createdAt}#${keyId}`,
  };
  return {
    apiKey,
    keyId,
    keyExpiresAt,
    items: [
      { Put: { TableName: table(), Item: keyItem, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: table(), Item: ref, ConditionExpression: 'attribute_not_exists(pk)' } },
    ],
  };
}

/** Put a participant item (no condition on a new random id beyond non-existence). */
export function putParticipantItem(p: Participant): TransactItem {
  return { Put: { TableName: table(), Item: p, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** A new key for the participant, recorded in its audit log in the same transaction. */
export async function createKeyFor(
  participant: Pick<Participant, 'id' | 'type' | 'apiVersion'>,
  audit: AuditContext,
  opts: KeyOptions = {},
) {
  const key = newApiKey(participant, opts);
  await transact([...key.items, auditPut(participant.id, audit, 'api_key.created', key.keyId)]);
  return { keyId: key.keyId, apiKey: key.apiKey, keyExpiresAt: key.keyExpiresAt };
}

export const getKeyRef = (keyId: string) => getItem<KeyRefItem>(keyIdKey(keyId));

/**
 * Revoke a key at once (the next request with it is 401), with its audit entry. Undefined when
 * the key id is unknown, or (with `ownerId`) belongs to another participant. Revoking a revoked
 * key answers its first revocation time and writes nothing.
 */
export async function revokeKey(
  keyId: string,
  audit: AuditContext,
  ownerId?: string,
): Promise<{ keyId: string; participantId: string; revokedAt: string } | undefined> {
  const ref = await getKeyRef(keyId);
  if (!ref || (ownerId !== undefined && ref.participantId !== ownerId)) return undefined;
  const current = await getItem<ApiKeyItem>(apiKeyKey(ref.hash));
  if (!current) return undefined;
  if (current.revokedAt) return { keyId, participantId: ref.participantId, revokedAt: current.revokedAt };
  const revokedAt = nowIso();
  try {
    await transact([
      {
        Update: {
          TableName: table(),
          Key: apiKeyKey(ref.hash),
          UpdateExpression: 'SET revokedAt = :t',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: { ':t': revokedAt },
        },
      },
      {
        Update: {
          TableName: table(),
          Key: keyIdKey(keyId),
          UpdateExpression: 'SET revokedAt = :t',
          ExpressionAttributeValues: { ':t': revokedAt },
        },
      },
      auditPut(ref.participantId, audit, 'api_key.revoked', keyId),
    ]);
  } catch (e) {
    // Revoked meanwhile by another request: answer its time.
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') return revokeKey(keyId, audit, ownerId);
    throw e;
  }
  return { keyId, participantId: ref.participantId, revokedAt };
}

export interface KeyView {
  keyId: string;
  name: string | null;
  prefix: string | null;
  role: KeyRole;
  createdBy: KeyCreator | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** A page of the participant's keys, newest first, after the key `after` names (already checked its own). */
export async function listKeys(participantId: string, limit: number, after?: KeyRefItem): Promise<{ keys: KeyView[]; hasMore: boolean }> {
  const { items } = await queryPage({
    IndexName: 'gsi2',
    KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk < :after' : 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': keysPk(participantId), ...(after ? { ':after': `${after.createdAt}#${after.keyId}` } : {}) },
    ScanIndexForward: false,
    Limit: limit + 1,
  });
  const refs = (items as KeyRefItem[]).slice(0, limit);
  // Last use lives on the key item (stamped by the pipeline's one request per call).
  const used = refs.length
    ? await batchGet<ApiKeyItem>(
        refs.map((r) => apiKeyKey(r.hash)),
        ['pk', 'lastUsedAt'],
      )
    : new Map<string, ApiKeyItem>();
  const keys = refs.map((r) => ({
    keyId: r.keyId,
    name: r.name ?? null,
    prefix: r.prefix ?? null,
    role: keyRoleOf(r),
    createdBy: r.createdBy ?? null,
    createdAt: r.createdAt,
    lastUsedAt: (used.get(apiKeyKey(r.hash).pk)?.lastUsedAt as string | undefined) ?? null,
    expiresAt: r.keyExpiresAt ?? null,
    revokedAt: r.revokedAt ?? null,
  }));
  return { keys, hasMore: items.length > limit };
}

/**
 * A participant's status on the operator's list (DESIGN 10.7): `active` while at least one of
 * its API keys works (neither revoked nor expired), `inactive` when none does (never given
 * one, or every one revoked or expired: it cannot call the API). Read from its keys' list
 * (gsi2 `KEYS#`, every attribute projected) when asked, so it needs no write and is never
 * stale: docs/decisions/dashboard-third-pass.md.
 */
export async function participantStatus(participantId: string, now = nowIso()): Promise<ParticipantStatus> {
  let status: ParticipantStatus = 'inactive';
  await queryPages(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keysPk(participantId) },
      ProjectionExpression: 'revokedAt, keyExpiresAt',
    },
    (keys) => {
      if ((keys as KeyRefItem[]).some((k) => keyWorks(k, now))) status = 'active';
      return status === 'inactive';
    },
  );
  return status;
}

/** The ids of a participant's keys that `userId` made and that still work (DESIGN 9.1: removal answers them). */
export async function unrevokedKeysCreatedBy(participantId: string, userId: string): Promise<string[]> {
  const refs = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    FilterExpression: 'createdBy.userId = :u AND attribute_not_exists(revokedAt)',
    ExpressionAttributeValues: { ':pk': keysPk(participantId), ':u': userId },
  });
  return (refs as KeyRefItem[]).map((r) => r.keyId);
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

/**
 * The operator's list of every participant (DESIGN 10.7): gsi1 `PARTICIPANTS`, newest first,
 * written with the participant (a participant is created rarely: one partition holds them),
 * with `searchText` (name, e-mail and id in lower case) for the list's search.
 */
export const PARTICIPANTS_PK = 'PARTICIPANTS';
export const participantSearchText = (p: Pick<Participant, 'id' | 'name' | 'email'>) => `${p.name} ${p.email} ${p.id}`.toLowerCase();

/** Build a participant item with the defaults of its type (DESIGN 6.9: new merchants are untrusted basic). */
export function buildParticipant(input: NewParticipantInput, id = newParticipantId(input.type)): Participant {
  const now = nowIso();
  const p: Participant = {
    ...participantKey(id),
    gsi1pk: PARTICIPANTS_PK,
    gsi1sk: `${now}#${id}`,
    searchText: participantSearchText({ id, name: input.name, email: input.email }),
    id,
    type: input.type,
    name: input.name,
    email: input.email,
    phone: input.phone,
    country: input.country,
    apiVersion: currentApiVersion(),
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

/** A merchant's retry policy for failed recurring runs (DESIGN 8.6), with its audit entry. */
export async function setRetryPolicy(merchantId: string, retryAfterDays: number[], audit: AuditContext): Promise<void> {
  await transact([
    {
      Update: {
        TableName: table(),
        Key: participantKey(merchantId),
        UpdateExpression: 'SET retryAfterDays = :d, updatedAt = :u',
        ExpressionAttributeValues: { ':d': retryAfterDays, ':u': nowIso() },
      },
    },
    auditPut(merchantId, audit, 'merchant.retry_policy_updated', merchantId),
  ]);
}

/** The highest trust level a provider may grant (operator). */
export async function setMaxTrustLevel(providerId: string, maxTrustLevel: TrustLevel, audit: AuditContext): Promise<void> {
  await transact([
    {
      Update: {
        TableName: table(),
        Key: participantKey(providerId),
        UpdateExpression: 'SET maxTrustLevel = :m, updatedAt = :u',
        ExpressionAttributeValues: { ':m': maxTrustLevel, ':u': nowIso() },
      },
    },
    auditPut(providerId, audit, 'provider.max_trust_level_updated', providerId),
  ]);
}
