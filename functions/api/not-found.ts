import middy from '@middy/core';
import type { HttpEvent, HttpResponse } from '../http/types';
import { MSG } from '../http/errors';

/** API Gateway `$default`: any request that matches no route. */
export const handler = middy<HttpEvent, HttpResponse>(async (event: HttpEvent) => ({
  statusCode: 404,
  headers: {
    'Content-Type': 'application/json',
    'X-Request-Id': event.requestContext?.requestId ?? crypto.randomUUID(),
  },
  body: JSON.stringify({ statusCode: 404, success: false, message: MSG.routeNotFound, code: 'route_not_found' }),
}));
