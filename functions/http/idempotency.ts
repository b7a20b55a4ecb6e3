import { PutCommand, UpdateCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshallItem } from '../platform/marshall';
import { sha256Hex } from '../domain/ids';
import { db } from '../platform/clients';
import { isConditionFailure, table } from '../platform/table';
import { metric } from '../platform/metrics';
import { containsSecret, open, purposeKey, seal } from '../domain/secrets';
import { MSG, badRequest, conflict, errorEntryByCode } from '../platform/errors';
import type { HttpEvent, HttpResponse, RequestState } from './types';

const TTL_SECONDS = 24 * 3600;
/** An in-progress record older than this belongs to a crashed invocation and may be taken over. */
const LOCK_SECONDS = 60;

/**
 * The stored answer. A response that carries anything secret-shaped (an API key, a webhook
 * secret: domain/secrets.ts) is kept only sealed: `sealed` holds its headers and body,
 * AES-256-GCM with the purpose key `idempotency-response` and AAD = the record's pk, so it
 * opens for this record only (DESIGN 8.1: no secret in clear at rest).
 */
interface StoredResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
  sealed?: string;
}

interface IdemRecord {
  status: 'in_progress' | 'completed';
  requestHash: string;
  lockedUntil: number;
  expiresAt: number;
  response?: StoredResponse;
}

const SEAL_PURPOSE = 'idempotency-response';
const sealAad = (pk: string) => `idempotency:${pk}`;

/** What the record keeps of `response` (never X-Request-Id: each answer has its own). */
export async function toStoredResponse(pk: string, response: HttpResponse): Promise<StoredResponse> {
  const { 'X-Request-Id': _rid, ...headers } = response.headers;
  const plain = JSON.stringify({ headers, body: response.body });
  if (!containsSecret(plain)) return { statusCode: response.statusCode, headers, body: response.body };
  return { statusCode: response.statusCode, sealed: seal(await purposeKey(SEAL_PURPOSE), plain, sealAad(pk)) };
}

/** The response to replay, byte for byte the first one. */
export async function fromStoredResponse(pk: string, stored: StoredResponse): Promise<HttpResponse> {
  if (stored.sealed === undefined) return { statusCode: stored.statusCode, headers: stored.headers ?? {}, body: stored.body ?? '' };
  const plain = open(await purposeKey(SEAL_PURPOSE), stored.sealed, sealAad(pk));
  // Tampered, moved from another record, or sealed under another master key: never replay it.
  if (!plain) throw new Error('Idempotency record cannot be opened');
  const { headers, body } = JSON.parse(plain.toString('utf8')) as { headers: Record<string, string>; body: string };
  return { statusCode: stored.statusCode, headers, body };
}

export const idempotencyPk = (keyId: string, route: string, idempotencyKey: string) =>
  `IDEM#${keyId}#${route}#${sha256Hex(idempotencyKey)}`;

/** What "the same request" means: same path, query, acting entity and raw body. */
export const idempotencyRequestHash = (path: string, query: string, entityId: string, body: string) =>
  sha256Hex(JSON.stringify([path, query, entityId, body]));

/**
 * Idempotency-Key (DESIGN 6.4): scoped per API key (a person: per person and participant) and route, stored in the single table
 * with a TTL. Returns a stored response to replay, or claims the key for this request.
 */
export async function claimIdempotency(state: RequestState, event: HttpEvent): Promise<void> {
  const headerKey = event.headers?.['idempotency-key'];
  if (headerKey === undefined || !state.scope) return;
  if (headerKey.length < 1 || headerKey.length > 255) throw badRequest(MSG.invalidIdempotencyKey);

  const pk = idempotencyPk(state.scope, `${state.route.method} ${state.route.path}`, headerKey);
  const requestHash = idempotencyRequestHash(
    event.rawPath,
    event.rawQueryString ?? '',
    event.headers?.['x-entity-id'] ?? '',
    state.rawBody,
  );
  const now = Math.floor(Date.now() / 1000);
  const record: IdemRecord = { status: 'in_progress', requestHash, lockedUntil: now + LOCK_SECONDS, expiresAt: now + TTL_SECONDS };
  try {
    await db().send(
      new PutCommand({
        TableName: table(),
        Item: { pk, sk: 'IDEM', ...record },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    state.idempotency = { pk };
    return;
  } catch (e) {
    if (!isConditionFailure(e) || !e.Item) throw e;
    const old = unmarshallItem(e.Item) as unknown as IdemRecord;
    if (old.requestHash !== requestHash) throw conflict(MSG.idempotencyMismatch);
    if (old.status === 'completed' && old.response) {
      const first = await fromStoredResponse(pk, old.response);
      state.idempotency = { pk, replay: { ...first, headers: { ...first.headers, 'Idempotent-Replayed': 'true' } } };
      metric('IdempotentReplays');
      return;
    }
    if (old.lockedUntil > now) throw conflict(MSG.idempotencyInProgress);
  }
  // A stale in-progress record (crashed invocation): take it over, once.
  try {
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk, sk: 'IDEM' },
        UpdateExpression: 'SET lockedUntil = :l',
        ConditionExpression: '#s = :ip AND lockedUntil <= :now',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':l': now + LOCK_SECONDS, ':ip': 'in_progress', ':now': now },
      }),
    );
    state.idempotency = { pk };
  } catch (e) {
    if (isConditionFailure(e)) throw conflict(MSG.idempotencyInProgress);
    throw e;
  }
}

/**
 * An answer that tells the client to retry the SAME request: a 5xx, or a 409 "retry shortly"
 * (every element of a bill/pay answer). Storing it would replay it to that retry for 24 h.
 */
export function isRetryLater(response: Pick<HttpResponse, 'statusCode' | 'body'>): boolean {
  if (response.statusCode >= 500) return true;
  if (response.statusCode !== 409) return false;
  try {
    const body = JSON.parse(response.body) as unknown;
    const codes = (Array.isArray(body) ? body : [body]).map((e) => (e as { code?: unknown } | null)?.code);
    // "Nothing was written, retry shortly": the error table's `retry` codes (platform/errors.ts).
    return codes.length > 0 && codes.every((c) => typeof c === 'string' && errorEntryByCode(c)?.retry === true);
  } catch {
    return false;
  }
}

/** Store the final response for replay, or release the key when it says "retry" (5xx, 409 retry shortly: a retry may succeed). */
export async function settleIdempotency(state: RequestState, response: HttpResponse): Promise<void> {
  const idem = state.idempotency;
  if (!idem || idem.replay) return;
  if (isRetryLater(response)) {
    await db().send(new DeleteCommand({ TableName: table(), Key: { pk: idem.pk, sk: 'IDEM' } }));
    return;
  }
  // Sealing can fail (no application secret): then nothing is stored, as when this write
  // fails (functions/http/endpoint.ts), never the secret in clear.
  const stored = await toStoredResponse(idem.pk, response);
  await db().send(
    new UpdateCommand({
      TableName: table(),
      Key: { pk: idem.pk, sk: 'IDEM' },
      UpdateExpression: 'SET #s = :c, #r = :r',
      ExpressionAttributeNames: { '#s': 'status', '#r': 'response' },
      ExpressionAttributeValues: { ':c': 'completed', ':r': stored },
    }),
  );
}
