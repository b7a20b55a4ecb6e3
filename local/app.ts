/**
 * The local runtime (DESIGN 3): table and queues from the shared definitions, the HTTP
 * server, the SQS pollers, the poller on the table's stream (local/streams.ts) and the
 * scheduler tick, all calling the handler modules that Lambda runs. Configuration reaches the
 * handlers through the same environment variables. What it shares with artifacts mode is in
 * local/runtime.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetSecrets } from '../functions/domain/secrets';
import { ensureBucket, ensureQueues, ensureTable, localBucketName, tableStreamWanted, visibilityCap } from './resources';
import { invoke } from './lambda';
import { queueDefinitionSources, startPollers } from './pollers';
import { startHttpServer } from './server';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';
import { startStreamPoller, type StreamPoller } from './streams';
import { EVENT_STREAM } from '../functions/platform/definitions';
import { queueUrlEnv } from '../lib/settings';
import {
  SETTLE_TIMEOUT_MS,
  artifactsRequested,
  startTickTimer,
  stopRuntime,
  streamCheckpoints,
  streamPollerWanted,
  visibleMessages,
  waitQuiet,
  wakeOnLocalWrites,
  workQueueUrls,
  type AppOptions,
  type LocalApp,
  type TickResult,
} from './runtime';

export { SETTLE_TIMEOUT_MS, artifactsRequested, type AppOptions, type LocalApp, type TickResult } from './runtime';

let dnsPatched = false;

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
  await ensureTable(ddb, opts.tableName, { stream: tableStreamWanted(opts.env) });
  const queueEnv = await ensureQueues(sqs, opts.queuePrefix, visibilityCap(opts.env));
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
  const pollers = startPollers(
    sqs,
    queueEnv,
    Number(process.env.LOCAL_POLLER_CONCURRENCY ?? 4),
    queueDefinitionSources(queueEnv, visibilityCap(opts.env)),
  );
  const eventStream =
    streamPollerWanted() && tableStreamWanted(opts.env)
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
