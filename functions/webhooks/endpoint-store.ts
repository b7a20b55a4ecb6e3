/**
 * Webhook endpoints in the single table. One partition per owner (`WHEP#<ownerId>`): the
 * endpoints (`EP#<id>`) and a counter item (`COUNT`) that caps how many an owner may have,
 * so one event never fans out to more deliveries than a transaction can hold.
 * Secrets are sealed (AES-256-GCM, purpose key `webhook-secret`, bound to the endpoint id):
 * they are needed to sign, so they cannot be hashed.
 */
import { purposeKey, open, seal } from '../domain/secrets';
import { db } from '../platform/clients';
import { auditPut, type AuditContext } from '../identity/audit';
import {
  cancellationCodes,
  getItem,
  isConditionFailure,
  queryAll,
  table,
  transact,
  UpdateCommand,
  type TransactItem,
} from '../platform/table';
import type { ListRange } from '../platform/list-page';
import type { SigningSecrets } from './signing';

/** Most endpoints one participant may have. */
export const MAX_ENDPOINTS = 10;
/** How long the replaced secret keeps signing after a rotation (env override for tests). */
export const secretOverlapSeconds = () => Number(process.env.WEBHOOK_SECRET_OVERLAP_SECONDS || 86_400);

export type EndpointStatus = 'enabled' | 'disabled';

export interface EndpointItem {
  pk: string;
  sk: string;
  id: string;
  ownerId: string;
  url: string;
  events: string[];
  status: EndpointStatus;
  /** Sealed current secret. */
  secret: string;
  secretVersion: number;
  /** The API version its deliveries' payloads are written at: the request's when it was created (absent before pinning: the first). */
  apiVersion?: string;
  /** Sealed previous secret and the end of its overlap (ISO). */
  previousSecret?: string;
  previousSecretExpiresAt?: string;
  disabledAt?: string;
  disabledReason?: string;
  /** Health (webhooks/lanes.ts): in the slow lane until then (epoch ms). */
  slowUntil?: number;
  /**
   * Failed attempts in a row, across the endpoint's deliveries (DESIGN 9.3 `health`): 0 after a
   * 2xx, +1 per failed attempt; absent until the first attempt (`noteAttemptOutcome`).
   */
  failStreak?: number;
  lastFailureAt?: string;
  createdAt: string;
  updatedAt: string;
  [extra: string]: unknown;
}

export const endpointPk = (ownerId: string) => `WHEP#${ownerId}`;
export const endpointKey = (ownerId: string, id: string) => ({ pk: endpointPk(ownerId), sk: `EP#${id}` });
export const endpointCounterKey = (ownerId: string) => ({ pk: endpointPk(ownerId), sk: 'COUNT' });

/** Ids come from path parameters: anything not shaped like one of ours cannot exist. */
export const isIdShaped = (id: string | undefined, prefix: string): id is string =>
  typeof id === 'string' && id.length <= 64 && new RegExp(`^${prefix}_[0-9A-Za-z]+$`).test(id);

const aad = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export async function sealSecret(endpointId: string, secret: string): Promise<string> {
  return seal(await purposeKey('webhook-secret'), secret, aad(endpointId));
}

export async function openSecret(endpointId: string, sealed: string): Promise<string> {
  const plain = open(await purposeKey('webhook-secret'), sealed, aad(endpointId));
  if (!plain) throw new Error(`Webhook secret of ${endpointId} cannot be opened`);
  return plain.toString('utf8');
}

/** The secrets that sign a delivery now: the current one, plus the previous during its overlap. */
export async function signingSecrets(ep: EndpointItem, nowMs: number): Promise<SigningSecrets> {
  const current = await openSecret(ep.id, ep.secret);
  if (ep.previousSecret && ep.previousSecretExpiresAt && Date.parse(ep.previousSecretExpiresAt) > nowMs) {
    return { current, previous: await openSecret(ep.id, ep.previousSecret), previousExpiresAt: ep.previousSecretExpiresAt };
  }
  return { current };
}

/**
 * One endpoint. Strongly consistent by default (the API answers its owner's own writes); the
 * event pipeline reads eventually consistent (`consistent = false`, half the read units on the
 * owner's one partition: docs/decisions/webhook-delivery.md "Endpoint reads").
 */
export const getEndpoint = (ownerId: string, id: string, consistent = true) => getItem<EndpointItem>(endpointKey(ownerId, id), consistent);

/** The owner's endpoints, oldest first (ids are time-ordered), as a list range of the table itself. */
export function endpointRange(ownerId: string): ListRange {
  return { pkName: 'pk', skName: 'sk', pk: endpointPk(ownerId), lo: 'EP#', hi: 'EP#\uffff', ascending: true, consistent: true };
}

/** The owner's endpoints (strongly consistent unless `consistent` is false: see getEndpoint). */
export function listEndpoints(ownerId: string, consistent = true): Promise<EndpointItem[]> {
  return queryAll<EndpointItem>({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ep)',
    ExpressionAttributeValues: { ':pk': endpointPk(ownerId), ':ep': 'EP#' },
    ConsistentRead: consistent,
  });
}

/** The counter update that admits one more endpoint (fails the transaction at the cap). */
export function admitEndpoint(ownerId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: endpointCounterKey(ownerId),
      UpdateExpression: 'ADD endpointCount :one',
      ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': MAX_ENDPOINTS },
    },
  };
}

export function releaseEndpoint(ownerId: string): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: endpointCounterKey(ownerId),
      UpdateExpression: 'ADD endpointCount :minus',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  };
}

/** The endpoint as the API shows it: never a secret. */
export function toApiEndpoint(ep: EndpointItem) {
  return {
    id: ep.id,
    url: ep.url,
    events: ep.events,
    status: ep.status,
    disabledAt: ep.disabledAt ?? null,
    disabledReason: ep.disabledReason ?? null,
    previousSecretExpiresAt:
      ep.previousSecretExpiresAt && Date.parse(ep.previousSecretExpiresAt) > Date.now() ? ep.previousSecretExpiresAt : null,
    health: endpointHealth(ep),
    createdAt: ep.createdAt,
    updatedAt: ep.updatedAt,
  };
}

/** Failed attempts in a row that make an endpoint `failing` (DESIGN 9.3). */
export const FAILING_STREAK = 5;
export type EndpointHealth = 'healthy' | 'failing' | 'unknown';

/**
 * DESIGN 9.3: `failing` when its last 5 attempts failed (any status but 2xx, or no answer),
 * pending retries included; `unknown` before any attempt; else `healthy`.
 */
export function endpointHealth(ep: Pick<EndpointItem, 'failStreak'>): EndpointHealth {
  if (typeof ep.failStreak !== 'number') return 'unknown';
  return ep.failStreak >= FAILING_STREAK ? 'failing' : 'healthy';
}

// ---------------------------------------------------------------------------------------
// Writes (the webhooks feature's persistence boundary for endpoints)

/** Store a new endpoint within its owner's limit; false when the owner is at the limit. */
export async function insertEndpoint(item: EndpointItem, audit: AuditContext): Promise<boolean> {
  try {
    await transact([
      { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      admitEndpoint(item.ownerId),
      auditPut(item.ownerId, audit, 'webhook_endpoint.created', item.id),
    ]);
    return true;
  } catch (e) {
    if (cancellationCodes(e)[1] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

/** Remove an endpoint at once; false when there is no such endpoint of this owner. */
export async function deleteEndpoint(ownerId: string, id: string, audit: AuditContext): Promise<boolean> {
  try {
    await transact([
      { Delete: { TableName: table(), Key: endpointKey(ownerId, id), ConditionExpression: 'attribute_exists(pk)' } },
      releaseEndpoint(ownerId),
      auditPut(ownerId, audit, 'webhook_endpoint.deleted', id),
    ]);
    return true;
  } catch (e) {
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

/**
 * Replace the endpoint's secret by `sealedSecret`, the current one signing alongside until
 * `previousSecretExpiresAt`; conditioned on the version read. False when the endpoint was
 * deleted or rotated meanwhile (read it again).
 */
export async function replaceSecret(
  ep: EndpointItem,
  sealedSecret: string,
  previousSecretExpiresAt: string,
  now: string,
  audit: AuditContext,
): Promise<boolean> {
  try {
    await transact([
      {
        Update: {
          TableName: table(),
          Key: endpointKey(ep.ownerId, ep.id),
          UpdateExpression:
            'SET secret = :secret, secretVersion = :next, previousSecret = :prev, previousSecretExpiresAt = :until, secretRotatedAt = :now, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND secretVersion = :version',
          ExpressionAttributeValues: {
            ':secret': sealedSecret,
            ':next': ep.secretVersion + 1,
            ':prev': ep.secret, // already sealed for this endpoint
            ':until': previousSecretExpiresAt,
            ':now': now,
            ':version': ep.secretVersion,
          },
        },
      },
      auditPut(ep.ownerId, audit, 'webhook_endpoint.secret_rotated', ep.id),
    ]);
    return true;
  } catch (e) {
    if (cancellationCodes(e)[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Delivery health on the endpoint (the delivery worker and its lanes: webhooks/lanes.ts)

async function updateEndpointIf(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> {
  try {
    await db().send(new UpdateCommand({ ...input, TableName: table() }));
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

/**
 * Count an attempt's outcome on its endpoint (docs/decisions/delivery-attempts.md): a failure
 * adds one to `failStreak`; a success resets it, and is written only when it changes something
 * (`ep` as the worker read it had a streak, or no attempt yet), so a healthy endpoint costs no
 * write per delivery. A deleted endpoint is left alone.
 */
export async function noteAttemptOutcome(ep: EndpointItem, ok: boolean, nowIso: string): Promise<void> {
  if (ok && ep.failStreak === 0) return;
  await updateEndpointIf({
    Key: endpointKey(ep.ownerId, ep.id),
    UpdateExpression: ok ? 'SET failStreak = :zero' : 'ADD failStreak :one SET lastFailureAt = :now',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: ok ? { ':zero': 0 } : { ':one': 1, ':now': nowIso },
  });
}

/** `slowUntil = until`, unless a mark already lasts beyond `unlessBeyond`. */
export function markEndpointSlow(ep: EndpointItem, until: number, unlessBeyond: number): Promise<boolean> {
  return updateEndpointIf({
    Key: endpointKey(ep.ownerId, ep.id),
    UpdateExpression: 'SET slowUntil = :until',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(slowUntil) OR slowUntil < :half)',
    ExpressionAttributeValues: { ':until': until, ':half': unlessBeyond },
  });
}

/** Take slot `slot` (free, or its lease over at `nowMs`) for `holder`, marking the endpoint slow until `slowUntil`. */
export function takeEndpointSlot(
  ep: EndpointItem,
  slot: string,
  holder: { deliveryId: string; until: number },
  slowUntil: number,
  nowMs: number,
): Promise<boolean> {
  return updateEndpointIf({
    Key: endpointKey(ep.ownerId, ep.id),
    UpdateExpression: 'SET #slot = :mine, slowUntil = :until',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#slot) OR #slot.#u < :now)',
    ExpressionAttributeNames: { '#slot': slot, '#u': 'until' },
    ExpressionAttributeValues: { ':mine': holder, ':until': slowUntil, ':now': nowMs },
  });
}

/** Free slot `slot`, if `deliveryId` still holds it. */
export function releaseEndpointSlot(ep: EndpointItem, slot: string, deliveryId: string): Promise<boolean> {
  return updateEndpointIf({
    Key: endpointKey(ep.ownerId, ep.id),
    UpdateExpression: 'REMOVE #slot',
    ConditionExpression: '#slot.#d = :mine',
    ExpressionAttributeNames: { '#slot': slot, '#d': 'deliveryId' },
    ExpressionAttributeValues: { ':mine': deliveryId },
  });
}

/** Disable an endpoint that answered 410 Gone, or re-enable a disabled one. False when nothing changed. */
export function setEndpointStatus(ep: EndpointItem, status: 'enabled' | 'disabled', nowIso: string): Promise<boolean> {
  const disable = status === 'disabled';
  return updateEndpointIf({
    Key: endpointKey(ep.ownerId, ep.id),
    UpdateExpression: disable
      ? 'SET #s = :s, disabledAt = :now, disabledReason = :why, updatedAt = :now'
      : 'SET #s = :s, updatedAt = :now REMOVE disabledAt, disabledReason',
    ConditionExpression: disable ? 'attribute_exists(pk)' : '#s = :was',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: disable
      ? { ':s': status, ':now': nowIso, ':why': 'gone' }
      : { ':s': status, ':now': nowIso, ':was': 'disabled' },
  });
}
