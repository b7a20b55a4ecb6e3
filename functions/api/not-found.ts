import middy from '@middy/core';
import { config } from '../config';
import { allowedMethods, routesFor } from '../routes';
import type { HttpEvent, HttpResponse } from '../http/types';
import { AppError, MSG } from '../platform/errors';
import { checkApiVersion, errorAnswer, requestIdOf, requestVersion } from '../platform/api-request';

/**
 * API Gateway `$default`: any request that matches no route. A path the table serves with
 * other methods is 405 `Method not allowed` with `Allow` (DESIGN 8.2); any other is 404
 * `Route not found`. Sandbox-only paths do not exist in live, so they stay 404 there. An
 * unknown `Idpay-Version` is 400 first, as on every route.
 */
export const handler = middy<HttpEvent, HttpResponse>(async (event: HttpEvent) => {
  const requestId = requestIdOf(event);
  try {
    checkApiVersion(event);
  } catch (e) {
    return errorAnswer(e as AppError, requestId);
  }
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const allow = allowedMethods(routesFor(config.stage()), path);
  const version = requestVersion(event);
  if (allow.length) return errorAnswer(new AppError(405, MSG.methodNotAllowed), requestId, { Allow: allow.join(', ') }, version);
  return errorAnswer(new AppError(404, MSG.routeNotFound), requestId, {}, version);
});
