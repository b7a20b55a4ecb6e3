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
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

export type IdpayClient = Client<paths, 'application/json'>;

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

/** A typed idpay client. Every call returns `{ data, error, response }` (openapi-fetch). */
export function createClient(options: CreateClientOptions): IdpayClient {
  if (!options.baseUrl) throw new TypeError('createClient: baseUrl is required');
  if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
  const headers: Record<string, string> = { ...options.headers, Authorization: `Bearer ${options.apiKey}` };
  if (options.entityId) headers['X-Entity-Id'] = options.entityId;
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(options),
  });
}

export { IdpayError, isIdpayError, unwrap } from './errors.js';
