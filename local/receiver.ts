/**
 * A real webhook receiver for tests and benchmarks: a node:http server on 127.0.0.1 (port 0)
 * that records every request (raw body included) and answers as scripted, per path:
 * a sequence of responses (status, delay, headers such as Retry-After), then a default.
 * Give each endpoint its own path so tests sharing a receiver do not see each other.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  method: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
  /** The status this receiver answered. */
  status: number;
}

export interface ScriptedResponse {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

export type Responder = (req: Omit<ReceivedRequest, 'status'>, index: number) => ScriptedResponse;

export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:49152 */
  url: string;
  /** A fresh unique path on this receiver: `${url}${path}`. */
  endpointUrl(label?: string): { url: string; path: string };
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (a refused address never gets this far). */
  connections(): number;
  /** Answer the next requests to `path` with these, in order; then the path's responder or the default. */
  script(path: string, responses: ScriptedResponse[]): void;
  /** Answer every request to `path` (once its script is used up) with this. */
  respond(path: string, responder: Responder | ScriptedResponse): void;
  received(path: string): ReceivedRequest[];
  /** Wait until `pred` holds for the requests to `path` (polling). */
  waitFor(path: string, pred: (reqs: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startReceiver(defaultResponse: ScriptedResponse = { status: 200 }): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, ScriptedResponse[]>();
  const responders = new Map<string, Responder>();
  const counts = new Map<string, number>();
  let next = 0;

  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
    const base = { path, method: req.method ?? 'GET', headers, body, receivedAt: Date.now() };
    const index = counts.get(path) ?? 0;
    counts.set(path, index + 1);
    const queued = scripts.get(path);
    const r: ScriptedResponse = queued?.length ? queued.shift()! : (responders.get(path)?.(base, index) ?? defaultResponse);
    const status = r.status ?? 200;
    requests.push({ ...base, status });
    if (r.delayMs) await new Promise((ok) => setTimeout(ok, r.delayMs));
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'text/plain', ...r.headers });
    res.end(r.body ?? '');
  });
  server.keepAliveTimeout = 5_000;
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    connections: () => connections,
    endpointUrl(label = 'ep') {
      const path = `/${label}-${++next}`;
      return { url: `${url}${path}`, path };
    },
    script(path, responses) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...responses]);
    },
    respond(path, responder) {
      responders.set(path, typeof responder === 'function' ? responder : () => responder);
    },
    received: (path) => requests.filter((r) => r.path === path),
    async waitFor(path, pred, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const reqs = requests.filter((r) => r.path === path);
        if (pred(reqs)) return reqs;
        if (Date.now() > deadline) {
          throw new Error(
            `receiver: condition on ${path} not met within ${timeoutMs} ms (${reqs.length} requests: ${reqs.map((r) => r.status).join(',')})`,
          );
        }
        await new Promise((ok) => setTimeout(ok, 25));
      }
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
