/**
 * The local runtime (DESIGN 3): table and queues from the shared definitions, the HTTP
 * server, the SQS pollers, the poller on the table's stream (local/streams.ts) and the
 * scheduler tick, all calling the handler modules that Lambda runs. Configuration reaches the
 * handlers through the same environment variables.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDynamoSetup, localWriteListeners, resetClients } from '../functions/platform/clients';
import { addLockRetry } from './dynamodb/lock-timeout';
import { resetSecrets } from '../functions/domain/secrets';
import { ensureBucket, ensureQueues, ensureTable, localBucketName } from './resources';
import { invoke } from './lambda';
import { startPollers, type Poller } from './pollers';
import { startHttpServer } from './server';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';
import { fileCheckpoints, memoryCheckpoints, startStreamPoller, type Checkpoints, type StreamPoller } from './streams';
import { EVENT_STREAM } from '../functions/platform/definitions';
import { queueUrlEnv } from '../lib/settings';

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
  /** A file that keeps the stream poller's checkpoints across restarts (npm start); default: memory. */
  streamCheckpointFile?: string;
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
  /** Wait until the queues hold no visible message, the table's stream is read to its end, and no worker is running (up to SETTLE_TIMEOUT_MS by default). */
  settle(timeoutMs?: number): Promise<void>;
  /** The poller on the table's stream (undefined with LOCAL_STREAM_POLLER=0). */
  eventStream?: StreamPoller;
  /** Messages the SQS pollers have received and are still processing (the batches in hand). */
  processing(): number;
  /** The folder the functions write e-mail into (MAIL_DIR; read with local/mail.ts). */
  mailDir: string;
  stop(): Promise<void>;
}

let dnsPatched = false;

/** Whether LOCAL_ARTIFACTS asks for artifacts mode (`npm start -- --artifacts` sets it). */
export const artifactsRequested = (): boolean => ['1', 'true'].includes(process.env.LOCAL_ARTIFACTS ?? '');

/** How long `settle()` waits by default: a loaded machine is slow, a stuck stack still fails. */
export const SETTLE_TIMEOUT_MS = 45_000;

/**
 * Settled: twice in a row no worker is running, the work queues hold no visible message, and
 * the stream poller has read its shards to the end in a round that started after the check
 * before. Each check waits for such a round (waking the poller from its idle pause) instead of
 * hoping one falls between two checks: a round takes longer than a check on a loaded machine.
 */
export async function waitQuiet(
  busy: () => boolean,
  visible: () => Promise<number>,
  timeoutMs: number,
  stream?: StreamPoller,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let quiet = 0;
  let why = '';
  while (quiet < 2) {
    if (Date.now() > deadline) throw new Error(`local app did not settle in ${timeoutMs} ms: ${why}`);
    const since = Date.now();
    await pause(50);
    if (stream) {
      stream.wake();
      while (!stream.caughtUpSince(since) && Date.now() <= deadline) {
        await pause(10);
        stream.wake();
      }
    }
    const caughtUp = !stream || (!stream.busy() && stream.caughtUpSince(since));
    const working = busy();
    const waiting = await visible();
    quiet = caughtUp && !working && waiting === 0 ? quiet + 1 : 0;
    if (quiet === 0)
      why = [!caughtUp && stream?.describe(), working && 'a worker is running', waiting > 0 && `${waiting} message(s) visible`]
        .filter(Boolean)
        .join('; ');
  }
}

/**
 * Wakes the stream poller after every table write of this process (handlers in source mode,
 * the tests' own writes): it reads the stream at once instead of polling it often. The
 * in-process DynamoDB client is created again with the listener; returns the unregister.
 */
export function wakeOnLocalWrites(stream: () => StreamPoller | undefined): () => void {
  const listener = () => stream()?.wake();
  localWriteListeners.add(listener);
  // This process's clients also wait out DynamoDB Local's table lock (dynamodb/lock-timeout.ts).
  localDynamoSetup.add(addLockRetry);
  resetClients();
  return () => void localWriteListeners.delete(listener);
}

/** Queue URLs the workers consume (not the DLQs, nor the stream's failure queue). */
export const workQueueUrls = (urls: string[]) => urls.filter((url) => !url.endsWith('-dlq') && !url.endsWith(EVENT_STREAM.onFailure));

/** Whether the local stream poller runs (LOCAL_STREAM_POLLER=0 turns it off, e.g. for benches of the request path). */
export const streamPollerWanted = () => process.env.LOCAL_STREAM_POLLER !== '0';

/** Stream checkpoints: a file (kept across restarts) or memory. */
export const streamCheckpoints = (file?: string): Checkpoints => (file ? fileCheckpoints(file) : memoryCheckpoints());

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
  r: { timer?: NodeJS.Timeout; pollers: Poller; stream?: StreamPoller; server: Server; clients: { destroy(): void }[] },
  more?: () => Promise<unknown>,
): Promise<void> {
  if (r.timer) clearInterval(r.timer);
  await r.stream?.stop();
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
  let stream: StreamPoller | undefined;
  const unwake = wakeOnLocalWrites(() => stream);
  resetSecrets();

  const server: Server = await startHttpServer({
    port: opts.port,
    host: opts.host,
    stage: () => (process.env.STAGE === 'live' ? 'live' : 'sandbox'),
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const pollers = startPollers(sqs, queueEnv, Number(process.env.LOCAL_POLLER_CONCURRENCY ?? 4));
  const eventStream = streamPollerWanted()
    ? startStreamPoller(
        ddb,
        sqs,
        {
          tableName: opts.tableName,
          batchSize: EVENT_STREAM.batchSize,
          parallelizationFactor: EVENT_STREAM.parallelizationFactor,
          maximumRetryAttempts: EVENT_STREAM.maximumRetryAttempts,
          bisectBatchOnError: EVENT_STREAM.bisectBatchOnError,
          startingPosition: EVENT_STREAM.startingPosition,
          filters: [...EVENT_STREAM.filters],
          onFailureUrl: queueEnv[queueUrlEnv(EVENT_STREAM.onFailure)],
          invoke: (event) => invoke(EVENT_STREAM.worker, event, EVENT_STREAM.timeoutSeconds * 1000),
        },
        {
          endpoint: opts.dynamoEndpoint,
          region: LOCAL_REGION,
          credentials: LOCAL_CREDENTIALS,
          checkpoints: streamCheckpoints(opts.streamCheckpointFile),
        },
      )
    : undefined;
  stream = eventStream;

  const tick = async (at = new Date()) => {
    return (await invoke('workers/scheduler-tick', { scheduledTime: at.toISOString() }, 60_000)) as TickResult;
  };
  const timer = startTickTimer(tick, opts);

  const workQueues = workQueueUrls(Object.values(queueEnv));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    env,
    tick,
    updateEnvironment: async (vars) => void Object.assign(process.env, vars),
    settle: (timeoutMs = SETTLE_TIMEOUT_MS) => waitQuiet(pollers.busy, () => visibleMessages(sqs, workQueues), timeoutMs, eventStream),
    eventStream,
    processing: pollers.processing,
    mailDir: opts.env.MAIL_DIR!,
    stop: () => stopRuntime({ timer, pollers, stream: eventStream, server, clients: [ddb, sqs] }, async () => unwake()),
  };
}
