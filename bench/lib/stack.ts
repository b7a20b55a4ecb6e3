/**
 * The local stack a benchmark runs against: DynamoDB Local + fauxqs + the local runtime
 * (HTTP server, SQS pollers, optional tick timer), a fresh table and queues, an operator
 * key, and small API helpers. `stop()` stops everything it started, in reverse order.
 */
import { newOperatorKey } from '../../functions/domain/api-keys';
import { randomToken } from '../../functions/domain/ids';
import { startApp, type LocalApp } from '../../local/app';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamo, startSqs, type RunningService } from '../../local/services';
import { DynamoProxy, SqsProxy } from './proxies';

export interface ApiReply<T = any> {
  status: number;
  body: T;
}

export interface Party {
  id: string;
  apiKey: string;
  name: string;
  email: string;
}

export interface BenchStack {
  app: LocalApp;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  operatorKey: string;
  /** Unique lower-case suffix of this stack (names, emails). */
  run: string;
  call<T = any>(method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<ApiReply<T>>;
  /** `call` that throws unless the status is `status`; returns the body. */
  must<T = any>(status: number, method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  participant(type: 'bank' | 'merchant' | 'provider', extra?: Record<string, unknown>): Promise<Party>;
  /** With `proxies`: the instruments between the service and DynamoDB Local / fauxqs (bench/lib/proxies.ts). */
  ddbProxy?: DynamoProxy;
  sqsProxy?: SqsProxy;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Scheduler tick period (ms); 0 = no timer (default). */
  tickMs?: number;
  /** SQS poller sets per queue (LOCAL_POLLER_CONCURRENCY); 0 = queues are not consumed. Default 4 (npm start's). */
  pollers?: number;
  /** Extra configuration for the handlers. */
  env?: Record<string, string>;
  /**
   * Put the measuring proxies (bench/lib/proxies.ts) between the service and its DynamoDB and
   * SQS: every request of every client goes through them. Default false.
   */
  proxies?: boolean;
}

export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiReply<T>> {
  const res = await fetch(new URL(path, baseUrl), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T };
}

let quieted = false;
/**
 * The SQS client warns on every send that the emulator's queue URL host differs from its
 * endpoint (the local runtime relies on exactly that): thousands of lines in a benchmark.
 */
export function quietQueueUrlWarnings(): void {
  if (quieted) return;
  quieted = true;
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('QueueUrl=') && args[0].includes('differs from SQSClient')) return;
    warn(...args);
  };
}

export async function startBenchStack(opts: StackOptions = {}): Promise<BenchStack> {
  quietQueueUrlWarnings();
  const services: RunningService[] = [];
  let app: LocalApp | undefined;
  const stop = async () => {
    await app?.stop().catch(() => undefined);
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
  };
  try {
    const dynamo = await startDynamo();
    services.push(dynamo);
    const sqs = await startSqs();
    services.push(sqs);
    let ddbProxy: DynamoProxy | undefined;
    let sqsProxy: SqsProxy | undefined;
    if (opts.proxies) {
      ddbProxy = await new DynamoProxy(dynamo.endpoint, LOCAL_CREDENTIALS, LOCAL_REGION).start();
      services.push({ endpoint: ddbProxy.url, stop: () => ddbProxy!.stop() });
      sqsProxy = await new SqsProxy(sqs.endpoint).start();
      services.push({ endpoint: sqsProxy.url, stop: () => sqsProxy!.stop() });
    }
    if (opts.pollers !== undefined) process.env.LOCAL_POLLER_CONCURRENCY = String(opts.pollers);
    const operatorKey = newOperatorKey();
    const run = randomToken(6).toLowerCase();
    app = await startApp({
      dynamoEndpoint: ddbProxy?.url ?? dynamo.endpoint,
      sqsEndpoint: sqsProxy?.url ?? sqs.endpoint,
      tableName: `bench-${run}`,
      queuePrefix: `bench-${run}-`,
      port: 0,
      tickMs: opts.tickMs ?? 0,
      env: {
        STAGE: 'sandbox',
        OPERATOR_API_KEY: operatorKey,
        APP_SECRETS: JSON.stringify({ masterKey: randomToken(64) }),
        LOG_LEVEL: 'SILENT',
        RATE_LIMIT_PER_MINUTE: '1000000',
        // Setup finds every customer with one merchant's key (DESIGN 10.5's budgets are not what is measured).
        DISCOVERY_DAILY_LIMIT: '100000',
        ...opts.env,
      },
    });
    const a = app;
    const callApi = <T = any>(method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>(a.url, method, path, key, body, headers);
    const must = async <T = any>(
      status: number,
      method: string,
      path: string,
      key: string,
      body?: unknown,
      headers?: Record<string, string>,
    ) => {
      const r = await callApi<T>(method, path, key, body, headers);
      if (r.status !== status)
        throw new Error(`${method} ${path}: expected ${status}, got ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
      return r.body;
    };
    let n = 0;
    // Ctrl-C or a parent's SIGTERM: stop DynamoDB Local (a Java process) instead of orphaning it.
    const onSignal = (sig: NodeJS.Signals) => {
      void stop().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    return {
      app: a,
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      ddbProxy,
      sqsProxy,
      operatorKey,
      run,
      call: callApi,
      must,
      async participant(type, extra = {}) {
        n++;
        const name = `Bench ${type} ${n}`;
        const email = `${type}${n}-${run}@bench.test`;
        const body = await must<any>(201, 'POST', '/v1/operator/participants', operatorKey, { type, name, email, ...extra });
        return { id: body.data.id, apiKey: body.data.apiKey, name, email };
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
