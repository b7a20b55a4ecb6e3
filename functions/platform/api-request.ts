/**
 * What every answer of the API shares, whichever runtime builds it (the middy pipeline,
 * the `$default` route, the two public documentation routes): the request id, the API
 * version header and the error body. docs/decisions/api-versioning.md, error-codes.md.
 */
import { randomUUID } from 'node:crypto';
import { AppError, MSG } from './errors';

/** The version of the API this deployment speaks: sent on every response, accepted on requests. */
export const API_VERSION = '2026-11-01';
/** Every version a request may name in `Idpay-Version` (one so far). */
export const API_VERSIONS: readonly string[] = [API_VERSION];
export const VERSION_HEADER = 'Idpay-Version';

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
  if (asked !== undefined && !API_VERSIONS.includes(asked.trim())) {
    throw new AppError(400, MSG.unknownVersion, [{ path: VERSION_HEADER, message: `supported: ${API_VERSIONS.join(', ')}` }]);
  }
}

/** The error body: `{statusCode, success: false, message, code, type, requestId, errors?}`. */
export function errorBody(err: AppError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    statusCode: err.statusCode,
    success: false,
    message: err.message,
    code: err.code,
    type: err.type,
    requestId,
  };
  if (err.errors?.length) body.errors = err.errors;
  return body;
}

/** A whole JSON error answer with the common headers (for the handlers outside the pipeline). */
export function errorAnswer(err: AppError, requestId: string, headers: Record<string, string> = {}) {
  return {
    statusCode: err.statusCode,
    headers: { 'Content-Type': 'application/json', ...err.headers, ...headers, 'X-Request-Id': requestId, [VERSION_HEADER]: API_VERSION },
    body: JSON.stringify(errorBody(err, requestId)),
  };
}
