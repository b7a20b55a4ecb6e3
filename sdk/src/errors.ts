/**
 * IdpayError: an error answer of the API as one typed value (status, code, type, message,
 * requestId), and `unwrap`, which turns a call's `{ data, error, response }` into its `data`
 * or throws that error. Browser-safe (no Node imports): the dashboard bundles the client.
 *
 * Every error body is `{statusCode, success: false, message, code, type, docUrl, requestId,
 * param?, errors?}`: `message` is exact and stable, `code` is specific (one per message: the API
 * reference's error table), `type` is one of IdpayErrorType, `docUrl` is the code's entry in
 * the reference (`/docs#error-<code>`, relative to the API), `requestId` equals the response's
 * `X-Request-Id`, `param` names the one request field a business rule refused (a refund's
 * `amount` above what was paid), and a 400 may list `errors: [{path, message}]`. A body without
 * `type` (an older server, a proxy) gets one derived from the status, and the header supplies
 * a missing `requestId`.
 */

/** The kinds of error (the body's `type`). */
export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'conflict_error',
  'rate_limit_error',
  'api_error',
] as const;
export type IdpayErrorType = (typeof ERROR_TYPES)[number];

/** A field the validation refused (400). */
export interface IdpayFieldError {
  path: string;
  message: string;
}

/** The error envelope, as sent (each element of a bill or pay answer has this shape too). */
export interface IdpayErrorBody {
  statusCode?: number;
  success?: false;
  message?: string;
  code?: string;
  type?: string;
  docUrl?: string;
  param?: string;
  requestId?: string;
  errors?: IdpayFieldError[];
}

/** The `type` an answer of this status has when its body names none. */
export function errorTypeForStatus(status: number): IdpayErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

const isErrorType = (v: unknown): v is IdpayErrorType => typeof v === 'string' && (ERROR_TYPES as readonly string[]).includes(v);
const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The one element that speaks for the body: the body itself, or a bill/pay answer's first element. */
function speaker(body: unknown): Record<string, unknown> | undefined {
  return Array.isArray(body) ? asRecord(body[0]) : asRecord(body);
}

const BRAND = Symbol.for('@idpay/sdk.IdpayError');

/** A `docUrl` (relative to the API) made absolute against the URL of the answer it came in, when that is known. */
function absolute(docUrl: string, answerUrl: string | undefined): string {
  try {
    return answerUrl ? new URL(docUrl, answerUrl).href : docUrl;
  } catch {
    return docUrl;
  }
}

/** An error answer of the API. `instanceof IdpayError` holds across the package's ESM and CommonJS builds. */
export class IdpayError extends Error {
  override readonly name = 'IdpayError';
  /** HTTP status. */
  readonly status: number;
  /** The specific code of the message (e.g. `refund_exceeds_refundable`, `idempotency_in_progress`); undefined when the body has none. */
  readonly code: string | undefined;
  /** The kind of error: the body's `type`, else derived from the status. */
  readonly type: IdpayErrorType;
  /** The request's id (`X-Request-Id`): quote it when you ask for help. */
  readonly requestId: string | undefined;
  /** The code's entry in the API reference (absolute when the answer's URL is known: `https://…/docs#error-<code>`). */
  readonly docUrl: string | undefined;
  /** The one request field a business rule refused (e.g. `amount`); undefined when no single field is at fault. */
  readonly param: string | undefined;
  /** The refused fields of a 400 (empty otherwise). */
  readonly errors: IdpayFieldError[];
  /** The parsed body as received (an array for a bill or pay answer). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    code?: string;
    type?: IdpayErrorType;
    requestId?: string;
    docUrl?: string;
    param?: string;
    errors?: IdpayFieldError[];
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.type = init.type ?? errorTypeForStatus(init.status);
    this.requestId = init.requestId;
    this.docUrl = init.docUrl;
    this.param = init.param;
    this.errors = init.errors ?? [];
    this.body = init.body;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** The error of an answer: its status and headers, and its parsed body (or undefined). */
  static fromResponse(response: Pick<Response, 'status' | 'statusText' | 'headers'> & { url?: string }, body: unknown): IdpayError {
    const e = speaker(body);
    const message = typeof e?.message === 'string' ? e.message : response.statusText || `HTTP ${response.status}`;
    const errors = Array.isArray(e?.errors)
      ? (e.errors as unknown[]).filter(
          (x): x is IdpayFieldError => typeof asRecord(x)?.path === 'string' && typeof asRecord(x)?.message === 'string',
        )
      : [];
    return new IdpayError({
      status: response.status,
      message,
      code: typeof e?.code === 'string' ? e.code : undefined,
      type: isErrorType(e?.type) ? e.type : undefined,
      requestId: (typeof e?.requestId === 'string' ? e.requestId : undefined) ?? response.headers.get('x-request-id') ?? undefined,
      docUrl: typeof e?.docUrl === 'string' ? absolute(e.docUrl, response.url) : undefined,
      param: typeof e?.param === 'string' ? e.param : undefined,
      errors,
      body,
    });
  }
}

/** True for an IdpayError (from either build of the package). */
export const isIdpayError = (value: unknown): value is IdpayError => value instanceof IdpayError;

/** What every client call resolves to (openapi-fetch's `{ data, error, response }`). */
export interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The call's `data`, or an IdpayError when the answer is not a 2xx.
 *
 *   const { data } = await unwrap(idpay.GET('/v1/balance/details'));
 *
 * A bill or pay answer of 207 (elements with different statuses) is a 2xx: its elements
 * carry their own `statusCode`, `message` and `code`.
 */
export async function unwrap<R extends CallResult>(call: R | Promise<R>): Promise<NonNullable<R['data']>> {
  const r = await call;
  if (!r.response.ok) throw IdpayError.fromResponse(r.response, r.error);
  return r.data as NonNullable<R['data']>;
}
