/**
 * Load generators: autocannon against the local HTTP server (an endpoint) and a closed
 * loop of async operations at the same concurrency (the raw DynamoDB floor). Both bounded
 * in time (and the floor also in count); both return every latency so runs can be merged.
 */
import autocannon from 'autocannon';
import { subscribe } from 'node:diagnostics_channel';
import { ServerResponse, type IncomingMessage } from 'node:http';
import { bump, sleep } from './stats';

/**
 * What the process's HTTP servers answered (Node's built-in diagnostics channels, so the
 * local server needs no hook): requests in flight and finished responses by status.
 *
 * A load run that stops at its deadline aborts the requests in flight (autocannon destroys
 * its sockets) but their handlers still run to the end and still call DynamoDB: `drain()`
 * waits until every handler has replied AND `busy()` (e.g. DynamoDB commands in flight)
 * has been false for `quietMs`, so the next measurement starts clean.
 */
export class ServerCounter {
  inFlight = 0;
  statuses: Record<string, number> = {};
  private subscribed = false;

  start(): this {
    if (this.subscribed) return this;
    this.subscribed = true;
    // A request is open until its handler's reply is written: the local server calls
    // res.end() once the handler returns, even when the client is gone, so end() marks
    // the handler's completion (a socket 'close' would fire as soon as the client aborts).
    const tracked = new WeakSet<ServerResponse>();
    const ended = new WeakSet<ServerResponse>();
    const end = ServerResponse.prototype.end;
    const self = this;
    ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
      if (tracked.has(this) && !ended.has(this)) {
        ended.add(this);
        self.inFlight--;
      }
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as typeof end;
    subscribe('http.server.request.start', (msg) => {
      this.inFlight++;
      tracked.add((msg as { response: ServerResponse }).response);
    });
    subscribe('http.server.response.finish', (msg) => {
      bump(this.statuses, String((msg as { response: ServerResponse; request: IncomingMessage }).response.statusCode));
    });
    return this;
  }

  reset(): Record<string, number> {
    const prev = this.statuses;
    this.statuses = {};
    return prev;
  }

  async drain(busy: () => boolean = () => false, quietMs = 100, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let quietSince = 0;
    while (Date.now() < deadline) {
      await sleep(25);
      if (this.inFlight > 0 || busy()) quietSince = 0;
      else if (!quietSince) quietSince = Date.now();
      else if (Date.now() - quietSince >= quietMs) return;
    }
  }
}

export interface LoadRun {
  what: 'endpoint' | 'floor';
  round: number;
  concurrency: number;
  seconds: number;
  /** Completed operations (HTTP responses, or floor op-sets without error). */
  completed: number;
  /** 2xx responses (endpoint) or successful op-sets (floor). */
  ok: number;
  statuses: Record<string, number>;
  errors: number;
  latencies: number[];
}

export interface HttpRequestSpec {
  path: string;
  body?: string;
}

/** autocannon for `seconds` at `connections`, each request from `next()`. */
export function runEndpointLoad(opts: {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  round?: number;
  next: () => HttpRequestSpec;
  /** Stop early when this returns true (checked per response). */
  exhausted?: () => boolean;
}): Promise<LoadRun> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const instance = autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        duration: opts.seconds,
        timeout: 30,
        method: opts.method,
        headers: opts.headers,
        requests: [
          {
            setupRequest: (req) => {
              const r = opts.next();
              return { ...req, method: opts.method, path: r.path, ...(r.body !== undefined ? { body: r.body } : {}) };
            },
          },
        ],
      },
      (err) => {
        if (err) return reject(err);
        const seconds = (performance.now() - started) / 1000;
        resolve({
          what: 'endpoint',
          round: opts.round ?? 0,
          concurrency: opts.connections,
          seconds,
          completed: latencies.length,
          ok,
          statuses,
          errors,
          latencies,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      bump(statuses, String(statusCode));
      if (statusCode >= 200 && statusCode < 300) ok++;
      if (opts.exhausted?.()) instance.stop();
    });
    instance.on('reqError', () => errors++);
  });
}

/** `concurrency` workers calling `op(n)` back to back for `seconds` (at most `maxOps` in all). */
export async function runClosedLoop(opts: {
  concurrency: number;
  seconds: number;
  round?: number;
  maxOps?: number;
  op: (n: number) => Promise<void>;
}): Promise<LoadRun> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  let n = 0;
  const maxOps = opts.maxOps ?? 1_000_000;
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < deadline && n < maxOps) {
        const i = n++;
        const t0 = performance.now();
        try {
          await opts.op(i);
          const t1 = performance.now();
          // Like autocannon: only what completes within the window counts (the op still finishes).
          if (t1 <= deadline) {
            ok++;
            latencies.push(t1 - t0);
          }
        } catch (e) {
          errors++;
          bump(statuses, (e as Error).name);
        }
      }
    }),
  );
  const seconds = Math.min(performance.now() - started, opts.seconds * 1000) / 1000;
  statuses.ok = ok;
  return { what: 'floor', round: opts.round ?? 0, concurrency: opts.concurrency, seconds, completed: ok, ok, statuses, errors, latencies };
}
