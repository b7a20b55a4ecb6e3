/**
 * createClient: an openapi-fetch client typed by the OpenAPI document (paths, parameters,
 * bodies, responses: they sharpen as the document does), with
 * - `Authorization: Bearer <apiKey>` and, for a provider acting for one of its merchants,
 *   `X-Entity-Id: <entityId>` on every request;
 * - an `Idempotency-Key` on every POST (a random UUID unless the call sets its own), the
 *   same key on every retry of that call, so a retried POST is never executed twice;
 * - retries with bounded exponential backoff and jitter on 429 (honouring `Retry-After`),
 *   5xx (except 501), network errors, and the 409s that mean "retry the same request
 *   shortly" (nothing was written): those whose `code` is one of RETRY_SHORTLY_CODES (the
 *   idempotency key's first request still in progress, or contention), or, from a server
 *   that sends no `code`, whose message is IN_PROGRESS_MESSAGE. Any other 409 (a key reused
 *   with another body, a closed resource) is returned at once.
 */
import createFetchClient, { type FetchOptions, type FetchResponse } from 'openapi-fetch';
import type { FilterKeys, HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { API_VERSION, LISTS } from './generated/meta.js';
import type { paths } from './generated/openapi.js';
import { IdpayError } from './errors.js';

export { API_VERSION };

/** The paths that have an operation for `M` (e.g. `KnownPath<'get'>`): any other path does not compile. */
export type KnownPath<M extends HttpMethod> = PathsWithMethod<paths, M>;
/** The options of one operation (`params` and `body` exactly as the document types them, plus fetch's own). */
export type OperationInit<P extends keyof paths, M extends HttpMethod> = FetchOptions<FilterKeys<paths[P], M>>;
type InitArgs<P extends keyof paths, M extends HttpMethod> =
  RequiredKeysOf<OperationInit<P, M>> extends never ? [init?: OperationInit<P, M>] : [init: OperationInit<P, M>];
// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's own constraint on an operation
type Operation<P extends keyof paths, M extends HttpMethod> = paths[P][M] extends infer O extends Record<string | number, any> ? O : never;
/** What a call resolves to: `{ data, error, response }` (openapi-fetch's), typed by the operation. */
export type CallResponse<P extends keyof paths, M extends HttpMethod> = FetchResponse<
  Operation<P, M>,
  OperationInit<P, M>,
  'application/json'
>;

/**
 * One HTTP method of the client. The options are not a type parameter (as in openapi-fetch,
 * where they are inferred): they are the operation's own type, so TypeScript checks an object
 * literal exactly (a misspelt or unknown property does not compile, nor a value outside an
 * enum), and an unknown path fails on the path itself.
 */
export type IdpayMethod<M extends HttpMethod> = <P extends string>(
  path: P extends KnownPath<M> ? P : KnownPath<M>,
  ...init: P extends KnownPath<M> ? InitArgs<P, M> : [init?: never]
) => Promise<P extends KnownPath<M> ? CallResponse<P, M> : never>;

/** The list operations (their `x-list` in the document): where the items are and which field `startingAfter` takes. */
export type ListPath = keyof typeof LISTS & KnownPath<'get'>;
type ListData<P extends ListPath> =
  NonNullable<Extract<CallResponse<P, 'get'>, { error?: never }>['data']> extends { data: infer D } ? D : never;
/** The item type of a list (e.g. `ListItem<'/v1/events'>`: an event of any type). */
export type ListItem<P extends ListPath> = (typeof LISTS)[P]['items'] extends infer K extends string
  ? ListData<P> extends { [k in K]: (infer I)[] }
    ? I
    : never
  : ListData<P> extends (infer I)[]
    ? I
    : never;
/** A list's options for paginate: its filters and `limit` (the page size); paging itself is paginate's. */
export type PaginateInit<P extends ListPath> = Omit<OperationInit<P, 'get'>, 'params'> & {
  params?: Omit<NonNullable<OperationInit<P, 'get'>['params']>, 'query'> & {
    query?: Omit<NonNullable<NonNullable<OperationInit<P, 'get'>['params']>['query']>, 'startingAfter' | 'skip' | 'offset'>;
  };
};

/** A typed idpay client: a method per HTTP method, and `paginate` over any list. */
export interface IdpayClient {
  GET: IdpayMethod<'get'>;
  POST: IdpayMethod<'post'>;
  PUT: IdpayMethod<'put'>;
  PATCH: IdpayMethod<'patch'>;
  DELETE: IdpayMethod<'delete'>;
  /**
   * Every item of a list, page after page (by `startingAfter`, the list's own cursor field),
   * typed by the list's item. Throws IdpayError on an error answer.
   *
   *   for await (const event of idpay.paginate('/v1/events', { params: { query: { type: 'billing.response' } } })) { ... }
   */
  paginate<P extends ListPath>(path: P, init?: PaginateInit<P>): AsyncIterableIterator<ListItem<P>>;
}

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (50-100 % of the step). Default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff delay. Default 5 000 ms. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the response is returned. Default 60 000 ms. */
  maxRetryAfterMs?: number;
}

export interface CreateClientOptions {
  /** e.g. `https://api.idpay.example` or `http://127.0.0.1:3000` (no trailing `/v1`). */
  baseUrl: string;
  /** `sk_sandbox_...` / `sk_live_...` (or the operator key). */
  apiKey: string;
  /** A provider acting for one of its merchants: sent as `X-Entity-Id`. */
  entityId?: string;
  /** Retry policy, or `false` for none. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Generates the automatic Idempotency-Key (default: crypto.randomUUID()). */
  idempotencyKey?: () => string;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: (input: Request) => Promise<Response>;
}

/** The message of the 409 answered while the first request with the same Idempotency-Key is still running. */
export const IN_PROGRESS_MESSAGE = 'Request with this idempotency key is in progress';
/** The `code` of that 409. */
export const IN_PROGRESS_CODE = 'idempotency_in_progress';
/**
 * 409 codes that mean "nothing was written, retry the same request shortly": the codes marked
 * `retry` in the API's error table (the document's `x-error-codes`).
 */
export const RETRY_SHORTLY_CODES: ReadonlySet<string> = new Set([
  IN_PROGRESS_CODE,
  'billing_contention',
  'billing_request_contention',
  'decision_contention',
  'dispute_contention',
  'member_contention',
  'refund_contention',
  'sandbox_race_lost',
]);

const DEFAULTS: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

/** `Retry-After` in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Backoff before retry number `retry` (0-based): min(max, base·2^retry), jittered to 50-100 %. */
export function backoffMs(retry: number, policy: Required<RetryOptions>, random = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * Does this 409 error body say "retry the same request shortly"? Decided by `code` when the
 * body has one, by the exact in-progress message otherwise; a bill or pay answer (an array)
 * only when every element says so.
 */
export function isRetryShortly(body: unknown): boolean {
  const items = Array.isArray(body) ? body : [body];
  return (
    items.length > 0 &&
    items.every((e) => {
      const x = e as { code?: unknown; message?: unknown } | null;
      if (typeof x?.code === 'string') return RETRY_SHORTLY_CODES.has(x.code);
      return x?.message === IN_PROGRESS_MESSAGE;
    })
  );
}

async function isRetryShortly409(response: Response): Promise<boolean> {
  try {
    return isRetryShortly(await response.clone().json());
  } catch {
    return false;
  }
}

/** How long to wait before retrying this response; undefined: do not retry. */
async function retryDelay(response: Response, retry: number, policy: Required<RetryOptions>): Promise<number | undefined> {
  const s = response.status;
  if (s === 429 || (s >= 500 && s !== 501)) {
    const after = parseRetryAfter(response.headers.get('retry-after'));
    if (after !== undefined && after > policy.maxRetryAfterMs) return undefined;
    return Math.max(after ?? 0, backoffMs(retry, policy));
  }
  if (s === 409 && (await isRetryShortly409(response))) return backoffMs(retry, policy);
  return undefined;
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** The fetch the client uses: adds the Idempotency-Key to POSTs and retries per the policy. */
export function retryingFetch(
  opts: Pick<CreateClientOptions, 'retry' | 'idempotencyKey' | 'fetch'>,
): (input: Request) => Promise<Response> {
  const send = opts.fetch ?? ((r: Request) => globalThis.fetch(r));
  const policy: Required<RetryOptions> = opts.retry === false ? { ...DEFAULTS, maxRetries: 0 } : { ...DEFAULTS, ...opts.retry };
  const newKey = opts.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  return async (input) => {
    let request = input;
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', newKey());
      request = new Request(request, { headers });
    }
    for (let retry = 0; ; retry++) {
      const last = retry >= policy.maxRetries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        // a network failure (never the caller's own abort): the same request, the same key
        if (last || request.signal.aborted) throw error;
        await sleep(backoffMs(retry, policy), request.signal);
        continue;
      }
      if (last) return response;
      const wait = await retryDelay(response, retry, policy);
      if (wait === undefined) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
    }
  };
}

/**
 * A typed idpay client. Every call returns `{ data, error, response }` (openapi-fetch). Every
 * request says `Idpay-Version: API_VERSION`, the version this SDK was generated for (so a
 * participant pinned at another version still gets answers this SDK understands), unless
 * `options.headers` or the call sets its own.
 */
export function createClient(options: CreateClientOptions): IdpayClient {
  if (!options.baseUrl) throw new TypeError('createClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
  const headers: Record<string, string> = { 'Idpay-Version': API_VERSION, ...options.headers, Authorization: `Bearer ${options.apiKey}` };
  if (options.entityId) headers['X-Entity-Id'] = options.entityId;
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(options),
  });
  return {
    GET: client.GET as IdpayMethod<'get'>,
    POST: client.POST as IdpayMethod<'post'>,
    PUT: client.PUT as IdpayMethod<'put'>,
    PATCH: client.PATCH as IdpayMethod<'patch'>,
    DELETE: client.DELETE as IdpayMethod<'delete'>,
    paginate: (path, init) => paginate(client.GET as unknown as PageGetter, path, init as PageInit | undefined),
  };
}

type PageInit = { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
type PageGetter = (path: string, init: PageInit) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The pages of one list, followed by `startingAfter` until `hasMore` is false. */
async function* paginate<T>(get: PageGetter, path: string, init: PageInit = {}): AsyncIterableIterator<T> {
  const list = (LISTS as Record<string, { items: string | null; cursor: string }>)[path];
  if (!list) throw new TypeError(`paginate: ${path} is not a list operation`);
  let after: string | undefined;
  for (;;) {
    const query = { ...init.params?.query, ...(after === undefined ? {} : { startingAfter: after }) };
    const { data, error, response } = await get(path, { ...init, params: { ...init.params, query } });
    if (!response.ok) throw IdpayError.fromResponse(response, error);
    const body = data as { data: unknown; hasMore?: boolean };
    // `data` is the array itself (hasMore beside it), or an object holding the array and hasMore.
    const page = list.items === null ? body.data : (body.data as Record<string, unknown>)[list.items];
    const hasMore = list.items === null ? body.hasMore : (body.data as { hasMore?: boolean }).hasMore;
    const items = Array.isArray(page) ? (page as Record<string, unknown>[]) : [];
    for (const item of items) yield item as T;
    const last = items.at(-1)?.[list.cursor];
    if (hasMore !== true || typeof last !== 'string') return;
    after = last;
  }
}

export { IdpayError, isIdpayError, unwrap } from './errors.js';
