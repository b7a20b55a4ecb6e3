/**
 * What every answer of the API shares, whichever runtime builds it (the middy pipeline,
 * the `$default` route, the two public documentation routes): the request id, the API
 * version header and the error body. docs/decisions/api-versioning.md, error-codes.md.
 */
import { randomUUID } from 'node:crypto';
import { AppError, MSG } from './errors';

/**
 * The first version of the API, and the version of every participant, key and membership
 * stored before versions were pinned (they have no `apiVersion`: they were made at it).
 */
export const API_VERSION = '2026-11-01';
export const VERSION_HEADER = 'Idpay-Version';

/**
 * A test-only next version (`API_NEXT_VERSION`, never set on a deployed stack): when set it
 * is the current version, so a test can show that a participant pinned at the first one
 * keeps it when the current one moves (docs/decisions/api-versioning.md). Read per call.
 */
const nextVersion = () => process.env.API_NEXT_VERSION?.trim() || undefined;

/** Every version a request may name in `Idpay-Version`, oldest first. */
export function apiVersions(): readonly string[] {
  const next = nextVersion();
  return next && next !== API_VERSION ? [API_VERSION, next] : [API_VERSION];
}

/** The current version: what a new participant is pinned at, and what answers a request made with no participant. */
export function currentApiVersion(): string {
  return apiVersions().at(-1)!;
}

/** The version a stored participant, key or membership is pinned at (`API_VERSION` when it predates pinning). */
export const pinnedVersion = (item: { apiVersion?: unknown } | undefined): string =>
  typeof item?.apiVersion === 'string' && apiVersions().includes(item.apiVersion) ? item.apiVersion : API_VERSION;

/**
 * The version a request is served at: its `Idpay-Version` (checked by checkApiVersion), else
 * the caller's pinned version, else (no caller: a public route, a refusal before the key is
 * known) the current one.
 */
export function requestVersion(event: RequestLike, pinned?: string): string {
  return event.headers?.['idpay-version']?.trim() || pinned || currentApiVersion();
}

/** The parts of an API Gateway event these helpers read. */
interface RequestLike {
  headers?: Record<string, string | undefined>;
  requestContext?: { requestId?: string };
}

/** The request's id: a well-formed incoming `X-Request-Id`, else API Gateway's, else a new one. */
export function requestIdOf(event: RequestLike): string {
  const incoming = event.headers?.['x-request-id'];
  return incoming && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : (event.requestContext?.requestId ?? randomUUID());
}

/**
 * 400 `Unknown API version` when the request names a version this deployment does not speak
 * (checked before anything else: the route, the key, the body). No header: the current version.
 */
export function checkApiVersion(event: RequestLike): void {
  const asked = event.headers?.['idpay-version'];
  if (asked !== undefined && !apiVersions().includes(asked.trim())) {
    throw new AppError(400, MSG.unknownVersion, [{ path: VERSION_HEADER, message: `supported: ${apiVersions().join(', ')}` }]);
  }
}

/** The error body: `{statusCode, success: false, message, code, type, docUrl, requestId, errors?}`. */
export function errorBody(err: AppError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    statusCode: err.statusCode,
    success: false,
    message: err.message,
    code: err.code,
    type: err.type,
    docUrl: err.docUrl,
    ...(err.param ? { param: err.param } : {}),
    requestId,
  };
  if (err.errors?.length) body.errors = err.errors;
  return body;
}

/** A whole JSON error answer with the common headers (for the handlers outside the pipeline). */
export function errorAnswer(err: AppError, requestId: string, headers: Record<string, string> = {}, version = currentApiVersion()) {
  return {
    statusCode: err.statusCode,
    headers: { 'Content-Type': 'application/json', ...err.headers, ...headers, 'X-Request-Id': requestId, [VERSION_HEADER]: version },
    body: JSON.stringify(errorBody(err, requestId)),
  };
}
