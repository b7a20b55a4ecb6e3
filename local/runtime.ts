/**
 * What both local runtimes share (source mode: local/app.ts; artifacts mode:
 * local/artifacts/app.ts): the options and the stack's interface, settling, the stream
 * poller's wake-up on local writes, the tick timer and the orderly stop. Both runtimes import
 * it; neither imports the other's module state (local/app.ts loads artifacts mode lazily).
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import { localDynamoSetup, localWriteListeners, resetClients } from '../functions/platform/clients';
import { EVENT_STREAM } from '../functions/platform/definitions';
import { addLockRetry } from './dynamodb/lock-timeout';
import type { Poller } from './pollers';
import { fileCheckpoints, memoryCheckpoints, type Checkpoints, type StreamPoller } from './streams';

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
  const listener = () => stream()?.noteWrite();
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
