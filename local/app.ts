/**
 * The local runtime (DESIGN 3): table and queues from the shared definitions, the HTTP
 * server, the SQS pollers and the scheduler tick, all calling the handler modules that
 * Lambda runs. Configuration reaches the handlers through the same environment variables.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetClients } from '../functions/platform/clients';
import { resetSecrets } from '../functions/domain/secrets';
import { ensureBucket, ensureQueues, ensureTable, localBucketName } from './resources';
import { invoke } from './lambda';
import { startPollers, type Poller } from './pollers';
import { startHttpServer } from './server';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

export interface AppOptions {
  dynamoEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  queuePrefix: string;
  /** HTTP port (0 = any free port). */
  port: number;
  host?: string;
  /** Scheduler tick period in ms; 0 = no timer (tests drive time with tick()). */
  tickMs: number;
  /** Ops can pause the local tick (npm run ops -- tick:pause). */
  tickPaused?: () => boolean;
  /** Configuration variables (DESIGN 6.8) for the handlers. */
  env?: Record<string, string>;
  /**
   * Artifacts mode (local/artifacts/): run the synthesized bundles under their template's
   * environment and IAM policies instead of the sources. Default: LOCAL_ARTIFACTS=1.
   */
  artifacts?: boolean;
  /** The local outbox of e-mail (MAIL_DIR; local/mail.ts): default a folder of the OS temp dir per queue prefix. */
  mailDir?: string;
}

export interface LocalApp {
  url: string;
  port: number;
  env: Record<string, string>;
  /** Run one scheduler tick with the given scheduled time (default now). */
  tick(at?: Date): Promise<TickResult>;
  /**
   * Change the functions' configuration variables, as a deployed function's configuration is
   * updated (tests use it to break a dependency on purpose).
   */
  updateEnvironment(vars: Record<string, string>): Promise<void>;
  /** Wait until the queues hold no visible message and no worker is running. */
  settle(timeoutMs?: number): Promise<void>;
  /** The folder the functions write e-mail into (MAIL_DIR; read with local/mail.ts). */
  mailDir: string;
  stop(): Promise<void>;
}

let dnsPatched = false;

/** Whether LOCAL_ARTIFACTS asks for artifacts mode (`npm start -- --artifacts` sets it). */
export const artifactsRequested = (): boolean => ['1', 'true'].includes(process.env.LOCAL_ARTIFACTS ?? '');

/** Settled: twice in a row no worker is running and the work queues hold no visible message. */
export async function waitQuiet(busy: () => boolean, visible: () => Promise<number>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (quiet < 2) {
    if (Date.now() > deadline) throw new Error('local app did not settle');
    await new Promise((r) => setTimeout(r, 50));
    quiet = !busy() && (await visible()) === 0 ? quiet + 1 : 0;
  }
}

/** Messages visible in the given queues (the caller leaves the DLQs out). */
export async function visibleMessages(sqs: SQSClient, urls: string[]): Promise<number> {
  let n = 0;
  for (const url of urls) {
    const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
    n += Number(out.Attributes?.ApproximateNumberOfMessages ?? 0);
  }
  return n;
}

/** Stops a local runtime in order: the tick timer, the pollers, the HTTP server, `more`, the clients. */
export async function stopRuntime(
  r: { timer?: NodeJS.Timeout; pollers: Poller; server: Server; clients: { destroy(): void }[] },
  more?: () => Promise<unknown>,
): Promise<void> {
  if (r.timer) clearInterval(r.timer);
  await r.pollers.stop();
  await new Promise<void>((res) => r.server.close(() => res()));
  r.server.closeAllConnections?.();
  await more?.();
  for (const c of r.clients) c.destroy();
}

export type TickResult = { found: number; claimed: number; enqueued: number; fannedOut: number };

/** The local stand-in for the schedule: a timer that never overlaps ticks and honours a pause. */
export function startTickTimer(tick: () => Promise<unknown>, opts: Pick<AppOptions, 'tickMs' | 'tickPaused'>): NodeJS.Timeout | undefined {
  if (opts.tickMs <= 0) return undefined;
  let ticking = false;
  return setInterval(() => {
    if (ticking || opts.tickPaused?.()) return;
    ticking = true;
    tick()
      .catch((e) => console.error('tick failed:', (e as Error).message))
      .finally(() => (ticking = false));
  }, opts.tickMs);
}

/**
 * The local stack. E-mail goes to a local outbox (MAIL_DIR) and its links name this server
 * (DASHBOARD_URL), unless the caller sets them.
 */
export async function startApp(options: AppOptions): Promise<LocalApp> {
  const mailDir =
    options.mailDir ?? options.env?.MAIL_DIR ?? join(tmpdir(), `idpay-mail-${options.queuePrefix.replace(/[^A-Za-z0-9-]/g, '')}`);
  const opts = { ...options, env: { ...options.env, MAIL_DIR: mailDir } as Record<string, string> };
  const app = await startRuntime(opts);
  if (!opts.env.DASHBOARD_URL) await app.updateEnvironment({ DASHBOARD_URL: app.url });
  return app;
}

async function startRuntime(opts: AppOptions & { env: Record<string, string> }): Promise<LocalApp> {
  // Queue URLs of the emulator name sqs.<region>.localhost, which the SDK may use as the
  // endpoint: resolve *.localhost to 127.0.0.1 in this process (local runtime only).
  if (!dnsPatched) {
    const { interceptLocalhostDns } = await import('fauxqs');
    interceptLocalhostDns();
    dnsPatched = true;
  }
  if (opts.artifacts ?? artifactsRequested()) {
    const { startArtifactsApp } = await import('./artifacts/app');
    return startArtifactsApp(opts);
  }
  const base: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: opts.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: opts.sqsEndpoint,
    // fauxqs also emulates S3 on the same endpoint: the exports bucket (DESIGN 8.8).
    AWS_ENDPOINT_URL_S3: opts.sqsEndpoint,
    EXPORTS_BUCKET: localBucketName(opts.queuePrefix),
    TABLE_NAME: opts.tableName,
  };
  const ddb = new DynamoDBClient({ endpoint: opts.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqs = new SQSClient({
    endpoint: opts.sqsEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    useQueueUrlAsEndpoint: false,
  });
  await ensureTable(ddb, opts.tableName);
  const queueEnv = await ensureQueues(sqs, opts.queuePrefix);
  await ensureBucket(opts.sqsEndpoint, LOCAL_REGION, LOCAL_CREDENTIALS, base.EXPORTS_BUCKET!);
  const env = { ...base, ...queueEnv, ...opts.env };
  Object.assign(process.env, env);
  resetClients();
  resetSecrets();

  const server: Server = await startHttpServer({
    port: opts.port,
    host: opts.host,
    stage: () => (process.env.STAGE === 'live' ? 'live' : 'sandbox'),
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const pollers = startPollers(sqs, queueEnv, Number(process.env.LOCAL_POLLER_CONCURRENCY ?? 4));

  const tick = async (at = new Date()) => {
    return (await invoke('workers/scheduler-tick', { scheduledTime: at.toISOString() }, 60_000)) as TickResult;
  };
  const timer = startTickTimer(tick, opts);

  const workQueues = Object.values(queueEnv).filter((url) => !url.endsWith('-dlq'));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    env,
    tick,
    updateEnvironment: async (vars) => void Object.assign(process.env, vars),
    settle: (timeoutMs = 15_000) => waitQuiet(pollers.busy, () => visibleMessages(sqs, workQueues), timeoutMs),
    mailDir: opts.env.MAIL_DIR!,
    stop: () => stopRuntime({ timer, pollers, server, clients: [ddb, sqs] }),
  };
}
