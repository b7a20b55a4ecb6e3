import { GetCommand, PutCommand, UpdateCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshallItem } from '../platform/marshall';
import { sha256Hex } from '../domain/ids';
import { db } from '../platform/clients';
import { isConditionFailure, table, type TransactItem } from '../platform/table';
import { logger } from '../platform/log';
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
 * The record key and request hash of this request's Idempotency-Key (DESIGN 6.4, scoped per
 * API key — a person: per person and participant — and route); undefined without a key.
 * A key that is empty or over 255 characters is 400.
 */
export function idempotencyOf(state: RequestState, event: HttpEvent): { pk: string; requestHash: string } | undefined {
  const headerKey = event.headers?.['idempotency-key'];
  if (headerKey === undefined || !state.scope) return undefined;
  if (headerKey.length < 1 || headerKey.length > 255) throw badRequest(MSG.invalidIdempotencyKey);
  return {
    pk: idempotencyPk(state.scope, `${state.route.method} ${state.route.path}`, headerKey),
    requestHash: idempotencyRequestHash(event.rawPath, event.rawQueryString ?? '', event.headers?.['x-entity-id'] ?? '', state.rawBody),
  };
}

/**
 * Idempotency-Key (DESIGN 6.4), stored in the single table with a TTL: returns a stored
 * response to replay, or claims the key for this request (an `in_progress` record, completed
 * by `settleIdempotency`).
 */
export async function claimIdempotency(state: RequestState, event: HttpEvent): Promise<void> {
  const key = idempotencyOf(state, event);
  if (!key) return;
  await claimKey(state, key.pk, key.requestHash);
}

async function claimKey(state: RequestState, pk: string, requestHash: string): Promise<void> {
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
    const replay = await replayOf(pk, requestHash, old, now);
    if (replay) {
      state.idempotency = { pk, replay };
      return;
    }
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
 * What an existing record means for a request with `requestHash`: another request's (409
 * mismatch), the first answer to replay, or a request still in flight (409 in progress);
 * undefined when it is an in-progress record whose lock has ended (a crashed invocation: it
 * may be taken over).
 */
async function replayOf(pk: string, requestHash: string, old: IdemRecord, now: number): Promise<HttpResponse | undefined> {
  if (old.requestHash !== requestHash) throw conflict(MSG.idempotencyMismatch);
  if (old.status === 'completed' && old.response) {
    const first = await fromStoredResponse(pk, old.response);
    metric('IdempotentReplays');
    return { ...first, headers: { ...first.headers, 'Idempotent-Replayed': 'true' } };
  }
  if (old.lockedUntil > now) throw conflict(MSG.idempotencyInProgress);
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Deferred records (routes with `idempotency: 'deferred'`, functions/http/endpoint.ts)

/**
 * A deferred route claims nothing before its handler runs: the handler writes the completed
 * record in its own transaction (`deferredRecord`: one DynamoDB request fewer on the
 * request's path), or claims the key itself (`claimDeferred`) when its work is not one
 * transaction; any other answer (a refusal, a 4xx before the handler) is stored after
 * (`storeDeferred`). A record that already exists for the key decides the answer exactly as
 * a claim would: replay, 409 mismatch, 409 in progress. Nothing of a request whose record
 * could not be written was committed (it is part of the same transaction, or the request
 * wrote nothing), and a 5xx or a "retry shortly" answer is never stored.
 */
const RECORD_CONDITION = 'attribute_not_exists(pk) OR expiresAt < :now OR (#s = :ip AND lockedUntil <= :now)';

/** The Put of the completed record of `response`, for the handler's own transaction. */
export async function deferredRecord(state: RequestState, response: HttpResponse): Promise<TransactItem> {
  const d = state.idempotency!;
  const now = Math.floor(Date.now() / 1000);
  const record: IdemRecord = {
    status: 'completed',
    requestHash: d.requestHash!,
    lockedUntil: now,
    expiresAt: now + TTL_SECONDS,
    response: await toStoredResponse(d.pk, response),
  };
  return {
    Put: {
      TableName: table(),
      Item: { pk: d.pk, sk: 'IDEM', ...record },
      ConditionExpression: RECORD_CONDITION,
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':now': now, ':ip': 'in_progress' },
    },
  };
}

/** After the record's condition failed: the answer the existing record gives (replay), or its 409. */
export async function existingAnswer(state: RequestState): Promise<HttpResponse> {
  const d = state.idempotency!;
  state.idempotency = { ...d, answered: true };
  const now = Math.floor(Date.now() / 1000);
  const out = await db().send(new GetCommand({ TableName: table(), Key: { pk: d.pk, sk: 'IDEM' }, ConsistentRead: true }));
  const old = out.Item as IdemRecord | undefined;
  const replay = old && old.expiresAt >= now ? await replayOf(d.pk, d.requestHash!, old, now) : undefined;
  if (!replay) throw conflict(MSG.idempotencyInProgress);
  state.idempotency = { ...d, answered: true, replay };
  return replay;
}

/** A deferred route's handler that cannot fold the record into one transaction claims the key as usual; a replay when there is one. */
export async function claimDeferred(state: RequestState): Promise<HttpResponse | undefined> {
  const d = state.idempotency!;
  await claimKey(state, d.pk, d.requestHash!);
  state.idempotency = { ...state.idempotency!, requestHash: d.requestHash, claimed: true };
  return state.idempotency.replay;
}

/**
 * The answer of a deferred route whose handler neither wrote the record nor claimed the key:
 * stored now, unless a record exists (then that record's answer: replay or 409), or unless
 * it asks for a retry (5xx, 409 retry shortly: never stored). Best effort, as settling a
 * claimed key is (functions/http/endpoint.ts): when the write fails, the request answers
 * what it did and nothing is stored.
 */
export async function storeDeferred(state: RequestState, response: HttpResponse): Promise<HttpResponse> {
  const d = state.idempotency;
  if (!d?.requestHash || d.replay || d.stored || d.claimed || d.answered || isRetryLater(response)) return response;
  try {
    const put = (await deferredRecord(state, response)).Put!;
    await db().send(new PutCommand(put as ConstructorParameters<typeof PutCommand>[0]));
    return response;
  } catch (e) {
    if (isConditionFailure(e)) return existingAnswer(state);
    logger.error('Idempotency record not stored', { requestId: state.requestId, status: response.statusCode, error: e as Error });
    return response;
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
  if (!idem || idem.replay || idem.stored || (idem.requestHash && !idem.claimed)) return;
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
