import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type * as z from 'zod';
import { config } from '../config';
import { MAX_ID_LENGTH, findRoute, type Route } from '../routes';
import { authenticate, authorize, enforceRateLimit, rateHeaders, requireMfa } from './auth';
import { AppError, type ErrorMessage, MSG, SANDBOX_MSG, badRequest, conflict, notFound } from '../platform/errors';
import { VERSION_HEADER, checkApiVersion, currentApiVersion, errorBody, requestIdOf, requestVersion } from '../platform/api-request';
import { withTestClock, type ClockContext } from '../platform/clock';
import { contextOf, getTestClock } from '../platform/test-clock-item';
import {
  claimDeferred,
  claimIdempotency,
  deferredRecord,
  existingAnswer,
  idempotencyOf,
  settleIdempotency,
  storeDeferred,
} from './idempotency';
import { RiderRefused, type Rider } from '../platform/table';
import { observeInvocation } from '../platform/invocation';
import { logger, setLogRequestId, withLogContext } from '../platform/log';
import { flushMetrics } from '../platform/metrics';
import type { HttpEvent, HttpResponse, Principal, Reply, RequestState } from './types';
import type { AuditContext } from '../identity/audit';
import type { Person } from '../identity/tokens';
import { readBody, validate, type ValidationSpec } from './validation';

export interface EndpointSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> extends ValidationSpec {
  body?: B;
  query?: Q;
  /** Success response schema (documentation only). */
  response?: z.ZodType;
  description?: string;
  /**
   * `deferred`: the Idempotency-Key is not claimed before the handler; the handler writes the
   * completed record in its own transaction (`ctx.idempotency.rider`) or claims the key itself
   * (`ctx.idempotency.claim`), and any other answer is stored after it (functions/http/idempotency.ts).
   */
  idempotency?: 'deferred';
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface Ctx<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  principal: Principal;
  requestId: string;
  /** The API version this request is served at (its `Idpay-Version`, else the caller's pinned one). */
  apiVersion: string;
  headers: Record<string, string | undefined>;
  /** Who, which request, from where: what an audited change records (identity/audit.ts). */
  audit: AuditContext;
  /** The signed-in person (access-token callers; on `applicant` routes the only caller there is). */
  person?: Person;
  /** Their access token, for Cognito calls made on their behalf. */
  accessToken?: string;
  /**
   * With an Idempotency-Key: its record's key (scope-bound and hashed), the same on every
   * retry of this request. A handler whose write may commit while its answer is lost (a
   * timeout after the commit releases the key, so the retry runs again) derives its new
   * resource's id from it, so the retry finds what the first attempt made.
   */
  requestKey?: string;
  /** On a `deferred` route with an Idempotency-Key (see EndpointSpec.idempotency). */
  idempotency?: DeferredIdempotency;
}

/** What a deferred route's handler does with the request's Idempotency-Key. */
export interface DeferredIdempotency {
  /** Claim the key as a non-deferred route would (work that is not one transaction); returns a replay when there is one. */
  claim(): Promise<HttpResponse | undefined>;
  /**
   * The record answering `reply(next)`, to ride on the domain transaction that makes `next`
   * (platform/table.ts Rider): marked recorded when that transaction commits.
   */
  rider<T>(reply: (next: T) => Reply): Rider<T>;
  /** `work`, whose rider refused (the key's record exists): the existing record's answer instead. */
  answering<T>(work: Promise<T>): Promise<T>;
}

/**
 * A deferred route's one-transaction work: `work` gets the rider of the key's record answering
 * `reply(next)` (none without an Idempotency-Key), and when that rider is refused (the key's
 * record exists) the request answers what the record says instead.
 */
export function riding<T, R>(
  idempotency: DeferredIdempotency | undefined,
  reply: (next: T) => Reply,
  work: (rider?: Rider<T>) => Promise<R>,
): Promise<R> {
  return idempotency ? idempotency.answering(work(idempotency.rider(reply))) : work();
}

/** Thrown to answer with a stored response (a replay) from inside the pipeline. */
export class ReplayResponse extends Error {
  constructor(readonly response: HttpResponse) {
    super('replay');
    this.name = 'ReplayResponse';
  }
}

type Internal = { state: RequestState };
type Mw = MiddlewareObj<HttpEvent, HttpResponse, Error, Context, Internal>;

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function toResponse(reply: Reply): HttpResponse {
  const isString = typeof reply.body === 'string';
  return {
    statusCode: reply.status,
    headers: { ...(isString ? {} : JSON_HEADERS), ...reply.headers },
    body: isString ? (reply.body as string) : JSON.stringify(reply.body),
  };
}

/** The error answer of `err`: an AppError's status, message, code and type; anything else a 500 that leaks nothing. */
export function errorResponse(err: unknown, requestId: string): HttpResponse {
  if (err instanceof ReplayResponse) return err.response;
  if (err instanceof AppError) return toResponse({ status: err.statusCode, body: errorBody(err, requestId), headers: err.headers });
  logger.error('Unhandled error', { requestId, error: err as Error });
  return toResponse({ status: 500, body: errorBody(new AppError(500, MSG.internal), requestId) });
}

const stateOf = new WeakMap<HttpEvent, RequestState>();

/** 1. Request id + 2. error envelope: the outermost layer; adds the common headers. */
const envelope: Mw = {
  before: (request) => {
    const event = request.event;
    const route = findRoute(event.routeKey);
    const requestId = requestIdOf(event);
    const state: RequestState = {
      requestId,
      startedAt: Date.now(),
      route: route!,
      params: (event.pathParameters ?? {}) as Record<string, string>,
      rawBody: readBody(event),
    };
    request.internal.state = state;
    stateOf.set(event, state);
    observeInvocation(request.context);
    setLogRequestId(requestId);
    checkApiVersion(event);
    state.apiVersion = requestVersion(event);
    if (!route || (route.sandboxOnly && config.stage() !== 'sandbox')) throw notFound(MSG.routeNotFound);
    refuseImpossibleIds(route, state.params, event.headers ?? {});
  },
  after: (request) => {
    request.response = finish(request.internal.state, request.response!);
  },
  onError: (request) => {
    const state = request.internal.state ?? { requestId: crypto.randomUUID(), startedAt: Date.now() };
    request.response = finish(state as RequestState, errorResponse(request.error, state.requestId));
  },
};

const ID_HEADERS: [header: string, message: ErrorMessage<400>][] = [
  ['x-entity-id', MSG.invalidEntityIdHeader],
  ['x-participant-id', MSG.invalidParticipantIdHeader],
  ['x-test-clock', MSG.invalidTestClockHeader],
];

/**
 * An id longer than any id can be (DESIGN 9.2) names nothing: a path parameter is the route's
 * 404, an id header a 400, at once and without a DynamoDB request (DynamoDB would refuse the
 * key as too long: a 5xx).
 */
function refuseImpossibleIds(route: Route, params: Record<string, string>, headers: Record<string, string | undefined>): void {
  if (Object.values(params).some((v) => v.length > MAX_ID_LENGTH))
    throw notFound((route.notFound as ErrorMessage<404> | undefined) ?? MSG.routeNotFound);
  for (const [header, message] of ID_HEADERS) {
    if ((headers[header]?.length ?? 0) > MAX_ID_LENGTH)
      throw badRequest(message, [{ path: header, message: `must be at most ${MAX_ID_LENGTH} characters` }]);
  }
}

function finish(state: RequestState, response: HttpResponse): HttpResponse {
  const headers = {
    ...response.headers,
    ...rateHeaders(state.rate),
    'X-Request-Id': state.requestId,
    [VERSION_HEADER]: state.apiVersion ?? currentApiVersion(),
  };
  // A replayed error (Idempotency-Key) names this request, like its X-Request-Id.
  const body = state.idempotency?.replay && response.statusCode >= 400 ? withRequestId(response.body, state.requestId) : response.body;
  logger.info('request', {
    requestId: state.requestId,
    route: state.route ? `${state.route.method} ${state.route.path}` : undefined,
    status: response.statusCode,
    durationMs: Date.now() - state.startedAt,
    kind: state.principal?.kind,
    participantId: state.principal?.id,
    replayed: state.idempotency?.replay ? true : undefined,
  });
  flushMetrics();
  return { ...response, headers, body };
}

function withRequestId(body: string, requestId: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'requestId' in parsed)
      return JSON.stringify({ ...parsed, requestId });
  } catch {
    /* not JSON: as stored */
  }
  return body;
}

/** 3. API key + 4. participant kind (route table) + 5. rate limit + a person's two-factor authentication (DESIGN 10.3). */
const access: Mw = {
  before: async (request) => {
    const state = request.internal.state;
    await authenticate(state, request.event);
    await authorize(state, request.event);
    enforceRateLimit(state);
    await requireMfa(state);
  },
};

/**
 * 6. Idempotency-Key on POST. Storing (or releasing) the answer is best effort: when that
 * write fails the request still answers what it did (a committed request its real result,
 * never a 500 that invites a duplicate; a refused one its own envelope, never a failed
 * invocation). The record then stays `in_progress` until its lock ends (a retry meanwhile
 * is 409 in progress). Found by the reliability suite (test/reliability/faults.test.ts).
 */
const idempotency = (deferred: boolean): Mw => ({
  before: async (request) => {
    if (request.event.requestContext?.http?.method !== 'POST') return;
    const state = request.internal.state;
    if (!deferred) return claimIdempotency(state, request.event);
    const key = idempotencyOf(state, request.event);
    if (key) state.idempotency = { pk: key.pk, requestHash: key.requestHash };
  },
  after: async (request) => {
    const state = request.internal.state;
    if (deferred && state.idempotency?.requestHash && !state.idempotency.claimed) {
      request.response = await storeDeferred(state, request.response!);
      return;
    }
    await settleQuietly(state, request.response!);
  },
  onError: async (request) => {
    const state = request.internal.state;
    if (!state?.idempotency || request.error instanceof ReplayResponse) return;
    if (deferred && state.idempotency.requestHash && !state.idempotency.claimed) {
      // A refusal thrown before or by the handler: stored, unless a record exists (its answer wins).
      try {
        const answer = await storeDeferred(state, errorResponse(request.error, state.requestId));
        if (state.idempotency.replay) request.error = new ReplayResponse(answer);
      } catch (e) {
        request.error = e as Error;
      }
      return;
    }
    await settleQuietly(state, errorResponse(request.error, state.requestId));
  },
});

async function settleQuietly(state: RequestState, response: HttpResponse): Promise<void> {
  try {
    await settleIdempotency(state, response);
  } catch (error) {
    logger.error('Idempotency record not settled', { requestId: state.requestId, status: response.statusCode, error: error as Error });
  }
}

/** 7. zod validation. */
const validation = (spec: ValidationSpec): Mw => ({
  before: (request) => {
    const state = request.internal.state;
    if (state.idempotency?.replay) return;
    validate(state, request.event, spec);
  },
});

/**
 * Builds an API handler: the middy pipeline in the order of DESIGN 2, then `fn`, which
 * gets validated input and returns the reply. The spec stays on the handler for the
 * OpenAPI generator.
 */
export function endpoint<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  spec: EndpointSpec<B, Q>,
  fn: (ctx: Ctx<Infer<B>, Infer<Q>>) => Promise<Reply>,
) {
  const core = async (event: HttpEvent): Promise<HttpResponse> => {
    const state = stateOf.get(event)!;
    if (state.idempotency?.replay) return state.idempotency.replay;
    const clock = await testClockOf(event, state);
    const call = () =>
      fn({
        body: state.body as Infer<B>,
        query: state.query as Infer<Q>,
        params: state.params,
        principal: state.principal!,
        requestId: state.requestId,
        apiVersion: state.apiVersion ?? currentApiVersion(),
        headers: event.headers ?? {},
        audit: {
          actor: state.principal?.actor ?? { type: 'user', id: state.person?.sub ?? 'unknown' },
          requestId: state.requestId,
          ip: event.requestContext?.http?.sourceIp ?? '',
        },
        person: state.person,
        accessToken: state.accessToken,
        requestKey: state.idempotency?.pk,
        idempotency: spec.idempotency === 'deferred' && state.idempotency?.requestHash ? deferredApi(state) : undefined,
      });
    return toResponse(await (clock ? withTestClock(clock, call) : call()));
  };
  const handler = middy<HttpEvent, HttpResponse, Error, Context, Internal>(core)
    .use(envelope)
    .use(access)
    .use(idempotency(spec.idempotency === 'deferred'))
    .use(validation(spec));
  // Each invocation logs in its own context (its X-Request-Id on every line).
  const observed = (event: HttpEvent, context: Context) => withLogContext(() => handler(event, context));
  return Object.assign(observed, { spec });
}

function deferredApi(state: RequestState): DeferredIdempotency {
  return {
    claim: () => claimDeferred(state),
    rider: (reply) => ({
      items: async (next) => [await deferredRecord(state, toResponse(reply(next)))],
      committed: () => {
        state.idempotency = { ...state.idempotency!, stored: true };
      },
    }),
    answering: (work) =>
      work.catch(async (e: unknown) => {
        if (!(e instanceof RiderRefused)) throw e;
        throw new ReplayResponse(await existingAnswer(state));
      }),
  };
}

/**
 * `X-Test-Clock: <clockId>` on a merchant's request in the sandbox (DESIGN 8.7): the request
 * runs in the clock's context at its frozen time (platform/clock.ts). Another merchant's or an
 * unknown clock: 404 `Test clock not found`; a clock being advanced: 409. Never read in live.
 */
async function testClockOf(event: HttpEvent, state: RequestState): Promise<ClockContext | undefined> {
  const header = event.headers?.['x-test-clock'];
  if (!header || config.stage() !== 'sandbox' || state.principal?.kind !== 'merchant') return undefined;
  const c = await getTestClock(state.principal.id, header);
  if (!c) throw notFound(SANDBOX_MSG.testClockNotFound);
  if (c.status === 'advancing') throw conflict(SANDBOX_MSG.testClockAdvancing);
  return contextOf(c);
}

/** Success envelope of the spec: statusCode, success, message, data (+ extra top-level fields). */
export function ok(status: number, message: string, data?: unknown, extra?: Record<string, unknown>): Reply {
  return { status, body: { statusCode: status, success: true, message, data, ...extra } };
}
