/**
 * The local API Gateway: turns each HTTP request into an HTTP API payload v2 event, routed
 * by the same route table, and calls the same handler module Lambda runs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { NOT_FOUND_HANDLER, matchRoute, routeKey, routesFor } from '../functions/routes';
import { invoke } from './lambda';
import { serveDashboard } from './dashboard';

const MAX_BODY = 10 * 1024 * 1024; // API Gateway's payload limit
/** How much of a body over MAX_BODY is read and dropped before the 413, to keep the connection usable. */
const MAX_DRAIN = 4 * MAX_BODY;

/** A body over MAX_BODY: 413. `close`: answered before the body ended, so the connection is closed after the answer. */
class TooLarge extends Error {
  readonly status = 413;
  constructor(readonly close: boolean) {
    super('too large');
  }
}

/**
 * The request's body. One over MAX_BODY is read to its end and dropped (up to MAX_DRAIN more),
 * so that the 413 leaves the kept-alive connection ready for the next request; a longer one is
 * answered once MAX_DRAIN is passed and its connection closed after the answer. Either way the
 * next request on that connection never waits behind the rest of a refused body (it did: the
 * reading stopped midway and the connection stayed open).
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
      // Answered before its end (a promise settles once): the rest is still read and dropped
      // while the 413 goes out with `Connection: close`.
      else if (size > MAX_BODY + MAX_DRAIN) reject(new TooLarge(true));
    });
    req.on('end', () => (size > MAX_BODY ? reject(new TooLarge(false)) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/** What a request is routed to: a route (key, path parameters, target) or `$default`. */
export interface RouteMatch {
  routeKey: string;
  params: Record<string, string>;
  target: string;
}
export type Router = (method: string, path: string) => RouteMatch | undefined;

/** Source mode: the route table; targets are handler modules, `$default` the not-found one. */
export const routeTableRouter =
  (stage: 'sandbox' | 'live'): Router =>
  (method, path) => {
    const m = matchRoute(routesFor(stage), method, path);
    return m ? { routeKey: routeKey(m.route), params: m.params, target: m.route.handler } : undefined;
  };

export function buildEvent(
  req: IncomingMessage,
  body: Buffer,
  stage: 'sandbox' | 'live',
  router: Router = routeTableRouter(stage),
  defaultTarget = NOT_FOUND_HANDLER,
): { event: APIGatewayProxyEventV2; handler: string } {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const match = router(method, url.pathname);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  // API Gateway v2 joins repeated query parameters with commas.
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = Date.now();
  const requestId = randomUUID();
  const text = body.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(body);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match ? match.routeKey : '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: match && Object.keys(match.params).length ? match.params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: match ? match.routeKey : '$default',
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: body.length ? (isText ? text : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
  return { event, handler: match ? match.target : defaultTarget };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const headers = { ...(result.headers ?? {}) } as Record<string, string | number | boolean>;
  res.writeHead(result.statusCode ?? 200, headers as Record<string, string>);
  const body = result.body ?? '';
  res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

export interface HttpServerOptions {
  port: number;
  host?: string;
  stage: () => 'sandbox' | 'live';
  /** Artifacts mode: routes from the template, targets are its functions (default: the route table). */
  router?: Router;
  defaultTarget?: string;
  invoke?: (target: string, event: APIGatewayProxyEventV2) => Promise<unknown>;
  /** Serve the dashboard at /dashboard/ (default true). */
  dashboard?: boolean;
}

export function startHttpServer(opts: HttpServerOptions): Promise<Server> {
  const call = opts.invoke ?? invoke;
  const server = createServer(async (req, res) => {
    // The dashboard's static app (CloudFront's S3 origin on AWS); everything else is the API.
    if (opts.dashboard !== false && serveDashboard(req, res)) return;
    try {
      const body = await readBody(req);
      const { event, handler } = buildEvent(req, body, opts.stage(), opts.router, opts.defaultTarget);
      const result = (await call(handler, event)) as APIGatewayProxyStructuredResultV2;
      send(res, result);
    } catch (e) {
      const status = (e as { status?: number }).status ?? 500;
      if (status === 500) console.error('local server: handler failed to run:', e);
      const close = e instanceof TooLarge && e.close;
      // What API Gateway itself answers when the integration fails.
      send(res, {
        statusCode: status,
        headers: { 'Content-Type': 'application/json', ...(close ? { Connection: 'close' } : {}) },
        body: JSON.stringify({
          statusCode: status,
          success: false,
          message: status === 413 ? 'Request too large' : 'Internal server error',
        }),
      });
    }
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((res) => server.listen(opts.port, opts.host ?? '127.0.0.1', () => res(server)));
}
