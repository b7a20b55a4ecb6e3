import middy from '@middy/core';
import { config } from '../config';
import { allowedMethods, routesFor } from '../routes';
import type { HttpEvent, HttpResponse } from '../http/types';
import { MSG } from '../platform/errors';

/**
 * API Gateway `$default`: any request that matches no route. A path the table serves with
 * other methods is 405 `Method not allowed` with `Allow` (DESIGN 8.2); any other is 404
 * `Route not found`. Sandbox-only paths do not exist in live, so they stay 404 there.
 */
export const handler = middy<HttpEvent, HttpResponse>(async (event: HttpEvent) => {
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const allow = allowedMethods(routesFor(config.stage()), path);
  const [status, message, code] = allow.length
    ? [405, MSG.methodNotAllowed, 'method_not_allowed']
    : [404, MSG.routeNotFound, 'route_not_found'];
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'application/json',
      'X-Request-Id': event.requestContext?.requestId ?? crypto.randomUUID(),
      ...(allow.length ? { Allow: allow.join(', ') } : {}),
    },
    body: JSON.stringify({ statusCode: status, success: false, message, code }),
  };
});
