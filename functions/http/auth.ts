import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { isWellFormedApiKey } from '../domain/api-keys';
import { safeEqualHex, sha256Hex } from '../domain/ids';
import { db } from '../platform/clients';
import { apiKeyKey, getParticipant, type ApiKeyItem } from '../identity/participant-store';
import { membershipKey, membershipsOf, type Membership } from '../identity/members';
import { type EndedSessions, endedSessionsOf, hasEnded } from '../identity/sessions';
import { AccessTokenError, TOKEN_MESSAGES, looksLikeJwt, verifyAccessToken } from '../identity/tokens';
import { keyRoleOf, rolesFor } from '../identity/roles';
import { mfaMissing } from '../identity/mfa';
import { getItem, isConditionFailure, table } from '../platform/table';
import { metric } from '../platform/metrics';
import { AppError, MSG, badRequest, fill, forbidden, notFound, tooManyRequests, unauthorized } from '../platform/errors';
import type { HttpEvent, Principal, RateState, RequestState } from './types';
import { pinnedVersion, requestVersion } from '../platform/api-request';

const WINDOW_SECONDS = 60;

function bearer(event: HttpEvent): string | undefined {
  const h = event.headers?.authorization ?? event.headers?.Authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

function isOperatorKey(token: string): boolean {
  const plain = config.operatorKey();
  const expected = config.operatorKeyHash() ?? (plain ? sha256Hex(plain) : undefined);
  return expected !== undefined && safeEqualHex(sha256Hex(token), expected);
}

/**
 * Rate counting without a DynamoDB write per request (DESIGN 10.2). Every request still reads
 * the caller's item STRONGLY CONSISTENTLY (a revoked or expired key fails at once, DESIGN
 * 6.1), but the count of its window lives in two places:
 *
 * - this instance's count of the requests it has not written yet (`unflushed`), and
 * - the shared count on the item (`rln_<class>` for the window `rlw_<class>`), which the
 *   instance ADDs its unflushed requests to in one batched write once it holds
 *   `flushEvery(limit)` of them (5 % of the limit) — or on EVERY request once the window's
 *   count reaches half the limit, so the 429 near the limit is exact across instances as before.
 *
 * The count a request is judged by is the shared count just read plus this instance's
 * unflushed requests: exact within one instance (and for limits under 40 a minute, where
 * every request writes); across N instances, while the window is below half its limit, the
 * shared count lags by at most (N − 1) × (flushEvery − 1) requests. Counts an instance never
 * flushed die with their window (a minute): they only ever make the limit more lenient.
 *
 * `lastUsedAt` rides on those writes; an instance that has not stamped the item for
 * LAST_USED_LAG_MS (an hour; a new instance: at its first request of the item) writes the
 * count with its first request instead of reading, so `lastUsedAt` lags by at most an hour
 * (DESIGN 10.2) and a key in steady use costs ~one write per instance and hour. The other
 * requests cost one strongly consistent GetItem (1 RRU, no WRU).
 */
const flushEvery = (limit: number) => Math.max(1, Math.floor(limit / 20));
/** How far a key's (or membership's) `lastUsedAt` may lag (DESIGN 10.2). */
const LAST_USED_LAG_MS = 3_600_000;
/** Bounds the per-instance state (one entry per item and rate class seen). */
const MAX_LOCAL_ENTRIES = 10_000;
/** When this instance last wrote each item's `lastUsedAt` (`pk|sk`). */
const stampedAt = new Map<string, number>();

interface LocalCount {
  window: number;
  /**
   * Whether the item's count is known to be in this window already (this instance wrote it, or
   * read it there): the next write then ADDs first; otherwise it opens the window first.
   */
  open: boolean;
  /** The shared count as last read or written in this window. */
  shared: number;
  /** Requests of this window this instance counted but has not written. */
  unflushed: number;
}
const localCounts = new Map<string, LocalCount>();

const windowOf = (nowMs: number) => Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;

/**
 * Read the caller's item (strongly consistent) and count this request against its rate-limit
 * window (fixed one-minute windows per rate class); undefined when there is no such item.
 */
async function touch<T>(
  key: { pk: string; sk: string },
  rateClass: string,
  nowMs: number,
): Promise<{ item: T; count: number } | undefined> {
  const window = windowOf(nowMs);
  const cls = rateClass.replace(/[^a-z0-9]/gi, '');
  const id = `${key.pk}|${key.sk}|${cls}`;
  let local = localCounts.get(id);
  if (!local || local.window !== window) {
    if (!local && localCounts.size >= MAX_LOCAL_ENTRIES) localCounts.clear();
    local = { window, open: false, shared: 0, unflushed: 0 };
    localCounts.set(id, local);
  }
  const limit = config.rateLimitFor(rateClass);
  const estimate = local.shared + local.unflushed + 1;
  const itemId = `${key.pk}|${key.sk}`;
  const stampDue = nowMs - (stampedAt.get(itemId) ?? Number.NEGATIVE_INFINITY) >= LAST_USED_LAG_MS;
  if (stampDue || estimate * 2 >= limit || local.unflushed + 1 >= flushEvery(limit)) {
    const delta = local.unflushed + 1;
    // Not known open to this instance (no write or read of it in this window): open it first.
    const found = await countWrite<T>(key, cls, window, delta, nowMs, !local.open);
    if (found) {
      local.window = found.window;
      local.open = true;
      local.shared = found.count;
      local.unflushed = 0;
      if (!stampedAt.has(itemId) && stampedAt.size >= MAX_LOCAL_ENTRIES) stampedAt.clear();
      stampedAt.set(itemId, nowMs);
    }
    return found;
  }
  const item = await getItem(key, true);
  if (!item) return undefined;
  local.open = item[`rlw_${cls}`] === window;
  local.shared = local.open ? Number(item[`rln_${cls}`] ?? 0) : 0;
  local.unflushed += 1;
  return { item: item as T, count: local.shared + local.unflushed };
}

/**
 * ADD `delta` to the item's count of `window` in one conditional UpdateItem; a window not
 * opened yet is opened by the other one. `opening` (the window is not known open to this
 * instance: it has neither written nor read the item in it) tries opening first: on the
 * bill's path the auth is then one request, not two, at each new minute (DESIGN 9.6: 3
 * requests); when another instance opened it already, the ADD follows. When the item already holds a LATER window than this request's clock gives (another
 * request, or an instance whose clock runs a little ahead, opened the next minute first), the
 * request is counted in that window: neither step could ever succeed for the older one, and a
 * request at a minute's edge must be counted, not failed.
 */
async function countWrite<T>(
  key: { pk: string; sk: string },
  cls: string,
  window: number,
  delta: number,
  nowMs: number,
  opening: boolean,
): Promise<{ item: T; count: number; window: number } | undefined> {
  const names = { '#w': `rlw_${cls}`, '#n': `rln_${cls}` };
  const usedAt = new Date(nowMs).toISOString();
  const command = (kind: 'add' | 'open', w: number) =>
    new UpdateCommand({
      TableName: table(),
      Key: key,
      UpdateExpression: kind === 'add' ? 'ADD #n :d SET lastUsedAt = :u' : 'SET #w = :w, #n = :d, lastUsedAt = :u',
      ConditionExpression:
        kind === 'add' ? 'attribute_exists(pk) AND #w = :w' : 'attribute_exists(pk) AND (attribute_not_exists(#w) OR #w < :w)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':d': delta, ':w': w, ':u': usedAt },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  // ADD counts in the open window; opening sets the count to delta.
  const kinds: ('add' | 'open')[] = opening ? ['open', 'add'] : ['add', 'open'];
  let counted = window;
  for (let attempt = 0; attempt < 3; attempt++) {
    for (const kind of kinds) {
      try {
        const out = await db().send(command(kind, counted));
        const item = out.Attributes!;
        return { item: item as T, count: kind === 'add' ? Number(item[names['#n']]) : delta, window: counted };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
        if (!e.Item) return undefined; // no such key
        // The window is in the other state (opened by another request, or not yet): the other
        // step. A later window than ours is already open: count there.
        const stored = Number(e.Item[names['#w']]?.N);
        if (stored > counted) counted = stored;
      }
    }
  }
  throw new Error('Rate-limit window contention');
}

/** API key (DESIGN 6.1) or a person's access token (DESIGN 8.3). Public routes (no kinds) skip it. */
export async function authenticate(state: RequestState, event: HttpEvent): Promise<void> {
  if (state.route.kinds.length === 0) return;
  const token = bearer(event);
  if (token === undefined) throw unauthorized(MSG.missingKey);
  if (!token) throw unauthorized(MSG.invalidKey);
  if (looksLikeJwt(token)) return authenticatePerson(state, event, token);
  if (isOperatorKey(token)) {
    state.principal = { kind: 'operator', id: 'operator', keyId: 'operator', actor: { type: 'operator', id: 'operator' } };
    state.scope = 'operator';
    refuseKeyOnPersonRoute(state);
    return;
  }
  const stage = config.stage();
  const other = stage === 'sandbox' ? 'live' : 'sandbox';
  if (token.startsWith(`sk_${other}_`)) throw unauthorized(fill(MSG.wrongStageKey, { stage }));
  // Shape and checksum (DESIGN 8.1): a malformed or made-up key costs no DynamoDB request.
  if (!isWellFormedApiKey(token, stage)) throw unauthorized(MSG.invalidKey);

  const nowMs = Date.now();
  const found = await touch<ApiKeyItem>(apiKeyKey(sha256Hex(token)), state.route.rateClass ?? 'default', nowMs);
  if (!found || found.item.revokedAt || found.item.stage !== stage) throw unauthorized(MSG.invalidKey);
  if (found.item.keyExpiresAt && Date.parse(found.item.keyExpiresAt) <= nowMs) throw unauthorized(MSG.keyExpired);

  setRate(state, found.count, nowMs);
  state.principal = {
    kind: found.item.kind,
    id: found.item.participantId,
    keyId: found.item.keyId,
    actor: { type: 'apiKey', id: found.item.keyId },
    // A key acts with its role exactly as a person with that role does (DESIGN 9.1).
    role: keyRoleOf(found.item),
    apiVersion: pinnedVersion(found.item),
  } satisfies Principal;
  state.apiVersion = requestVersion(event, state.principal.apiVersion);
  state.scope = found.item.keyId;
  refuseKeyOnPersonRoute(state);
}

function setRate(state: RequestState, count: number, nowMs: number): void {
  const limit = config.rateLimitFor(state.route.rateClass ?? 'default');
  state.rate = { limit, remaining: Math.max(0, limit - count), reset: windowOf(nowMs) + WINDOW_SECONDS } satisfies RateState;
  state.overLimit = count > limit;
}

/** Routes marked `caller` (person) in the route table refuse API keys, the operator's included. */
function refuseKeyOnPersonRoute(state: RequestState): void {
  if (state.route.caller) throw forbidden(MSG.personRequired);
}

/**
 * A person: the access token verified (401 with the verifier's message otherwise), then the
 * participant they act for: the one `X-Participant-Id` names, or their only membership. The
 * membership item is read and rate-counted in one request (`touch`). `applicant` routes need
 * no membership: the handler gets the person.
 */
async function authenticatePerson(state: RequestState, event: HttpEvent, token: string): Promise<void> {
  const person = await verifyAccessToken(token).catch((e: unknown) => {
    throw e instanceof AccessTokenError ? unauthorized(TOKEN_MESSAGES[e.reason]) : e;
  });
  state.person = person;
  state.accessToken = token;
  // A signed-out session (DESIGN 9.1): applicant routes read the person's sessions item (they
  // read nothing else to authenticate); participant routes find the ended sessions on the
  // membership item they read anyway, so a live session costs no extra request.
  const refuseIfEnded = async (ended?: EndedSessions) => {
    if (hasEnded(ended ?? (await endedSessionsOf(person.sub)), person.session)) throw unauthorized(MSG.sessionEnded);
  };
  if (state.route.caller === 'applicant') {
    await refuseIfEnded();
    state.scope = `user_${person.sub}`;
    return;
  }
  const nowMs = Date.now();
  const wanted = event.headers?.['x-participant-id'];
  let participantId = wanted;
  if (wanted === undefined) {
    const mine = await membershipsOf(person.sub, 2);
    if (mine.length === 0) {
      await refuseIfEnded();
      throw forbidden(MSG.notAMember);
    }
    if (mine.length > 1) {
      await refuseIfEnded(mine[0]!.endedSessions ?? {});
      throw badRequest(MSG.participantIdRequired);
    }
    participantId = mine[0]!.participantId;
  }
  const found = participantId
    ? await touch<Membership>(membershipKey(person.sub, participantId), state.route.rateClass ?? 'default', nowMs)
    : undefined;
  // Not a member of the participant named: the same answer as an unknown one (nothing leaks).
  if (!found) {
    await refuseIfEnded();
    throw forbidden(MSG.notAMember);
  }
  const m = found.item;
  await refuseIfEnded(m.endedSessions ?? {});
  setRate(state, found.count, nowMs);
  state.principal = {
    kind: m.participantKind,
    id: m.participantId,
    keyId: `user_${person.sub}`,
    actor: { type: 'user', id: person.sub, ...(m.email ? { email: m.email } : {}) },
    role: m.role,
    apiVersion: pinnedVersion(m),
  } satisfies Principal;
  state.apiVersion = requestVersion(event, state.principal.apiVersion);
  state.scope = `user_${person.sub}@${m.participantId}`;
}

/**
 * Participant-kind authorization from the route table (DESIGN 6.2), including a provider
 * acting for one of its merchants with X-Entity-Id.
 */
export async function authorize(state: RequestState, event: HttpEvent): Promise<void> {
  const p = state.principal;
  const kinds = state.route.kinds;
  if (!p) return; // public route, or an applicant (a person acting for no participant yet)
  // A person's or a key's role (DESIGN 8.3, 9.1), from the route table.
  if (p.role && !rolesFor(state.route, config.stage()).includes(p.role)) throw forbidden(MSG.insufficientRole);
  const entityId = event.headers?.['x-entity-id'];
  if (p.kind === 'provider' && entityId !== undefined && kinds.includes('merchant')) {
    const merchant = entityId ? await getParticipant(entityId) : undefined;
    if (merchant?.type !== 'merchant' || merchant.providerId !== p.id) throw notFound(MSG.merchantNotFound);
    state.principal = { ...p, kind: 'merchant', id: merchant.id, actingProviderId: p.id };
    return;
  }
  if (kinds.includes(p.kind)) return;
  if (p.kind === 'provider' && kinds.includes('merchant')) throw badRequest(MSG.entityIdRequired);
  throw forbidden(MSG.forbiddenKind);
}

/** 429 once the window's count passes the limit (the count was taken by authenticate). */
export function enforceRateLimit(state: RequestState): void {
  if (state.overLimit && state.rate) {
    metric('Throttles');
    throw tooManyRequests(Math.max(1, state.rate.reset - Math.floor(Date.now() / 1000)));
  }
}

/**
 * DESIGN 10.3: a person holding a role that must use two-factor authentication (live: owner,
 * admin) without an authenticator app on is refused everywhere but the routes marked
 * `mfaExempt` (identity/mfa.ts). After the rate limit: a refused person's retries are counted
 * like any request before Cognito is asked again.
 */
export async function requireMfa(state: RequestState): Promise<void> {
  if (!state.person || !state.accessToken || state.route.mfaExempt) return;
  if (await mfaMissing(state.person, state.accessToken, state.principal?.role)) throw forbidden(MSG.mfaRequired);
}

export function rateHeaders(rate: RateState | undefined): Record<string, string> {
  if (!rate) return {};
  return {
    'X-RateLimit-Limit': String(rate.limit),
    'X-RateLimit-Remaining': String(rate.remaining),
    'X-RateLimit-Reset': String(rate.reset),
  };
}

export { AppError };
