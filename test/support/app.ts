/**
 * A whole local stack per test file: its own table and queues on the run's DynamoDB Local
 * and SQS emulator, the HTTP server on a free port, the pollers, and no tick timer (tests
 * drive time with app.tick(at)).
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { artifactsRequested, startApp, type LocalApp } from '../../local/app';
import { newOperatorKey } from '../../functions/domain/api-keys';
import { randomToken } from '../../functions/domain/ids';
import { startReceiver, type Receiver } from '../../local/receiver';
import { cognitoEnv } from '../../local/cognito';
import { assertConforms, assertSurface } from './contract';
import { recordExample } from './examples';
import { recordInvocations } from './invocations';

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[]>;
}

export interface TestApp {
  app: LocalApp;
  url: string;
  operatorKey: string;
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<ApiResult<T>>;
  /** Operator creates a participant; returns its id and API key. */
  participant(
    type: 'bank' | 'merchant' | 'provider',
    extra?: Record<string, unknown>,
  ): Promise<{ id: string; apiKey: string; name: string; email: string }>;
  stop(): Promise<void>;
}

/** This file's lease token: a test file runs in a process of its own. */
const LEASE_TOKEN = randomToken(16);
let leased: string | undefined;

/**
 * This file's DynamoDB Local (test/support/dynamo-pool.ts): a fresh instance on the file's
 * worker slot (VITEST_POOL_ID), the same one for every stack the file starts.
 */
export async function dynamoEndpoint(): Promise<string> {
  if (leased) return leased;
  const url = new URL(inject('dynamoPool'));
  url.searchParams.set('slot', String(Math.max(1, Number(process.env.VITEST_POOL_ID ?? 1))));
  url.searchParams.set('token', LEASE_TOKEN);
  const r = await fetch(url);
  if (!r.ok) throw new Error(`No DynamoDB Local for this test file: ${r.status} ${await r.text()}`);
  leased = ((await r.json()) as { endpoint: string }).endpoint;
  return leased;
}

/**
 * In-process the functions log at ERROR, and their ERROR lines are kept here (the latest 200)
 * instead of printed: several tests provoke errors on purpose. An answer of 500 or more prints
 * the lines of its request (matched by `requestId`), so an unexpected 500 in a CI log says why.
 * (Artifacts mode prints the bundles' ERROR lines itself.)
 */
const keptErrors: { requestId?: string; line: string }[] = [];
let printError: typeof console.error | undefined;
function keepErrorLines(): void {
  if (printError) return;
  const original = console.error;
  printError = original;
  console.error = (...args: unknown[]) => {
    const line = args[0];
    if (args.length === 1 && typeof line === 'string' && line.startsWith('{"level":"ERROR"')) {
      try {
        keptErrors.push({ requestId: (JSON.parse(line) as { requestId?: string }).requestId, line });
        if (keptErrors.length > 200) keptErrors.shift();
        return;
      } catch {
        /* not one of ours: print it */
      }
    }
    original(...args);
  };
}

function explainServerError(method: string, path: string, status: number, requestId: string | null): void {
  if (!printError || status < 500) return;
  const lines = keptErrors.filter((e) => requestId && e.requestId === requestId).map((e) => e.line);
  printError(`${method} ${path} answered ${status} (request ${requestId}); its ERROR lines:\n${lines.join('\n') || '(none)'}`);
}

export async function startTestApp(
  env: Record<string, string> = {},
  opts: {
    tickMs?: number;
    tickPaused?: () => boolean;
    /** A DynamoDB Local of the test's own instead of the file's from the pool. */
    dynamoEndpoint?: string;
  } = {},
): Promise<TestApp> {
  const operatorKey = newOperatorKey();
  const suffix = randomToken(8).toLowerCase();
  if (!artifactsRequested() && process.env.TEST_LOG_LEVEL === undefined) keepErrorLines();
  const app = await startApp({
    dynamoEndpoint: opts.dynamoEndpoint ?? (await dynamoEndpoint()),
    sqsEndpoint: inject('sqsEndpoint'),
    tableName: `t-${suffix}`,
    queuePrefix: `t-${suffix}-`,
    port: 0,
    tickMs: opts.tickMs ?? 0,
    tickPaused: opts.tickPaused,
    env: {
      STAGE: 'sandbox',
      OPERATOR_API_KEY: operatorKey,
      APP_SECRETS: JSON.stringify({ masterKey: randomToken(64) }),
      // An unexpected 500's cause in a CI log: artifacts mode prints its functions' ERROR lines,
      // in-process they are kept and printed with a 5xx answer (keepErrorLines).
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'ERROR',
      ...cognitoEnv(inject('cognito')),
      ...env,
    },
  });
  const stage = (env.STAGE ?? 'sandbox') as 'sandbox' | 'live';
  const call = async <T>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResult<T>> => {
    const url = new URL(path, app.url);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (Array.isArray(v)) v.forEach((x) => url.searchParams.append(k, x));
      else url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    explainServerError(method, path, res.status, res.headers.get('x-request-id'));
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    // Every answer must match the served OpenAPI document, and every error carry its code,
    // type and request id (test/support/contract.ts).
    assertConforms(stage, method, url.toString(), res.status, parsed, res.headers.get('content-type'));
    assertSurface(stage, method, url.toString(), res.status, res.headers, parsed);
    recordExample(stage, method, url.toString(), res.status, opts.rawBody === undefined ? opts.body : undefined, parsed, [suffix]);
    return { status: res.status, headers: res.headers, body: parsed as T };
  };
  let n = 0;
  return {
    app,
    url: app.url,
    operatorKey,
    call,
    async participant(type, extra = {}) {
      n++;
      const name = `${type} ${n} ${suffix}`;
      const email = `${type}${n}-${suffix}@example.com`;
      const r = await call<any>('POST', '/v1/operator/participants', { key: operatorKey, body: { type, name, email, ...extra } });
      if (r.status !== 201) throw new Error(`participant create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.data.id, apiKey: r.body.data.apiKey, name, email };
    },
    // The file's table goes with its DynamoDB Local, retired when the next file leases its slot.
    stop: () => {
      recordInvocations(app, stage);
      return app.stop();
    },
  };
}

/**
 * The usual setup of a test file, in one place: a whole local stack (startTestApp) and a
 * webhook receiver, started before the file's tests and stopped after them. `ready` gets both
 * once they run: `withAppAndReceiver((app, receiver) => { t = app; rx = receiver; })`.
 */
export function withAppAndReceiver(
  ready: (app: TestApp, receiver: Receiver) => void,
  env: Record<string, string> = {},
  opts: { tickMs?: number; tickPaused?: () => boolean } = {},
): void {
  let app: TestApp | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    app = await startTestApp(env, opts);
    receiver = await startReceiver();
    ready(app, receiver);
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.stop();
  });
}
