/**
 * Fault injection INTO the real AWS SDK clients the handlers use (`db()`, `queue()` of
 * functions/platform/clients.ts): an SDK middleware that, at a configurable random rate,
 * throws the errors DynamoDB and SQS really return. Nothing is mocked: a request that is
 * not faulted goes to DynamoDB Local / the SQS emulator as usual.
 *
 * Two layers (both in the `finalizeRequest` step):
 * - `attempt` (below the SDK's retry middleware): one HTTP attempt fails; the SDK's own
 *   retry strategy (maxAttempts 4, retry quota) sees it exactly as it sees a real one, so
 *   throttling and timeouts are mostly absorbed, and a TransactionConflict is not retried.
 * - `call` (above the retry middleware): the whole SDK call fails, as when every retry
 *   failed or the retry quota is spent; the application code sees the error.
 *
 * Faults `before` the request (nothing reached the service) and `after` it (the service
 * applied the request, the response was lost: a timeout or a reset connection) are both
 * injected; `after` is what makes writes ambiguous.
 *
 * Randomness is a seeded PRNG: the same seed gives the same decision for the n-th SDK call
 * of a process (calls race under concurrency, so a scenario is reproducible in its fault
 * mix and rates, and exactly so when it runs sequentially). Print `faults.describe()` on
 * failure.
 */
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { RequestThrottled } from '@aws-sdk/client-sqs';
import { db, queue } from '../../functions/platform/clients';

export type FaultLayer = 'attempt' | 'call';
export type FaultTiming = 'before' | 'after';

export interface FaultRule {
  /** Probability (0..1) that one SDK call (or attempt) of a matching command faults. */
  rate: number;
  layer: FaultLayer;
  /** Share of faults (0..1) injected after the request was applied (ambiguous outcome). */
  afterShare?: number;
  /** Always this error (transactions: a TransactionConflict cancellation) instead of a random one. */
  only?: 'transaction-conflict' | 'throttling' | 'timeout';
}

export interface FaultConfig {
  seed: number;
  dynamo?: FaultRule[];
  sqs?: FaultRule[];
  /** Only commands whose name matches (e.g. /^(TransactWrite|Update)/). Default: all. */
  commands?: RegExp;
  /** Only requests this accepts (command name without `Command`, the serialized input). */
  match?: (command: string, input: unknown) => boolean;
  /**
   * Each rule draws from its own stream (the seed and the rule's place): the n-th call a
   * rule sees gets the same decision however the calls of the other rules interleave. With
   * one shared stream (the default) a rule's faults depend on which calls race ahead.
   */
  streamPerRule?: boolean;
}

export interface FaultStats {
  calls: number;
  injected: number;
  byError: Record<string, number>;
  byCommand: Record<string, number>;
}

/** The seed of rule `k`'s own stream (`streamPerRule`). */
const ruleSeed = (seed: number, k: number): number => (seed ^ Math.imul(k + 1, 0x9e3779b9)) >>> 0;

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const meta = (httpStatusCode: number) => ({
  httpStatusCode,
  requestId: `fault-${Math.random().toString(36).slice(2, 10)}`,
  attempts: 1,
  totalRetryDelay: 0,
});

function networkError(code: 'ECONNRESET' | 'ETIMEDOUT' | 'EPIPE' | 'ECONNREFUSED'): Error {
  const e = new Error(code === 'ECONNRESET' ? 'socket hang up' : `connect ${code} 127.0.0.1`) as Error & {
    code: string;
    $metadata: object;
  };
  e.code = code;
  e.$metadata = {};
  return e;
}

function timeoutError(): Error {
  const e = new Error('Connection timed out after 1000 ms') as Error & { $metadata: object };
  e.name = 'TimeoutError';
  e.$metadata = {};
  return e;
}

/** A realistic DynamoDB error for this command, `before` (not applied) or `after` (applied, response lost). */
function dynamoError(command: string, timing: FaultTiming, pick: () => number, only?: FaultRule['only']): Error {
  if (timing === 'after') return pick() < 0.5 ? timeoutError() : networkError('ECONNRESET');
  const transactional = command.startsWith('TransactWrite') || command.startsWith('TransactGet');
  const r = only === 'transaction-conflict' && transactional ? 0 : only === 'throttling' ? 0.6 : only === 'timeout' ? 0.9 : pick();
  if (transactional && r < 0.35) {
    // Another transaction held one of the items: DynamoDB cancels with TransactionConflict
    // on that item (other items 'None'); the SDK does not retry this.
    return new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
      Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
      $metadata: meta(400),
    });
  }
  if (r < 0.55) {
    return new ProvisionedThroughputExceededException({
      message: 'The level of configured provisioned throughput for the table was exceeded.',
      $metadata: meta(400),
    });
  }
  if (r < 0.7)
    return new ThrottlingException({
      message: 'Throughput exceeds the current capacity for one or more global secondary indexes.',
      $metadata: meta(400),
    });
  if (r < 0.78)
    return new RequestLimitExceeded({ message: 'Throughput exceeds the current throughput limit for your account.', $metadata: meta(400) });
  if (r < 0.86) return new InternalServerError({ message: 'Internal server error', $metadata: meta(500) });
  if (r < 0.93) return timeoutError();
  return networkError(pick() < 0.5 ? 'ECONNRESET' : 'EPIPE');
}

function sqsError(timing: FaultTiming, pick: () => number): Error {
  if (timing === 'after') return pick() < 0.5 ? timeoutError() : networkError('ECONNRESET');
  const r = pick();
  if (r < 0.6) return new RequestThrottled({ message: 'Request is throttled.', $metadata: meta(400) });
  if (r < 0.8) return timeoutError();
  return networkError('ECONNREFUSED');
}

type Stack = {
  add: (mw: unknown, opts: Record<string, unknown>) => void;
  addRelativeTo: (mw: unknown, opts: Record<string, unknown>) => void;
  remove: (name: string) => boolean;
};

export interface Faults {
  readonly stats: FaultStats;
  enable(): void;
  disable(): void;
  readonly enabled: boolean;
  /** Remove the middlewares from the clients. */
  remove(): void;
  describe(): string;
}

/**
 * Installs the fault middlewares on the current `db()` and `queue()` clients (call it after
 * `startTestApp`, which resets the clients). Starts disabled.
 */
export function injectFaults(cfg: FaultConfig): Faults {
  const shared = prng(cfg.seed);
  const streamOf = (k: number) => (cfg.streamPerRule ? prng(ruleSeed(cfg.seed, k)) : shared);
  let enabled = false;
  const stats: FaultStats = { calls: 0, injected: 0, byError: {}, byCommand: {} };
  const names: { stack: Stack; name: string }[] = [];

  const install = (stack: Stack, service: 'dynamo' | 'sqs', rule: FaultRule, i: number) => {
    const random = streamOf(service === 'dynamo' ? i : (cfg.dynamo?.length ?? 0) + i);
    const name = `reliabilityFault-${service}-${rule.layer}-${i}`;
    const mw =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: unknown): Promise<unknown> => {
        const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        if (!enabled || (cfg.commands && !cfg.commands.test(command))) return next(args);
        if (cfg.match && !cfg.match(command, (args as { input?: unknown }).input)) return next(args);
        stats.calls++;
        if (random() >= rule.rate) return next(args);
        const timing: FaultTiming = random() < (rule.afterShare ?? 0) ? 'after' : 'before';
        const error = service === 'dynamo' ? dynamoError(command, timing, random, rule.only) : sqsError(timing, random);
        stats.injected++;
        const label = `${service}:${rule.layer}:${timing}:${error.name}${(error as { code?: string }).code ? `:${(error as { code?: string }).code}` : ''}`;
        stats.byError[label] = (stats.byError[label] ?? 0) + 1;
        stats.byCommand[`${service}:${command}`] = (stats.byCommand[`${service}:${command}`] ?? 0) + 1;
        if (timing === 'after') await next(args);
        throw error;
      };
    if (rule.layer === 'attempt') {
      stack.add(mw, { step: 'finalizeRequest', priority: 'low', name, override: true });
    } else {
      stack.addRelativeTo(mw, { relation: 'before', toMiddleware: 'retryMiddleware', name, override: true });
    }
    names.push({ stack, name });
  };
  (cfg.dynamo ?? []).forEach((rule, i) => install(db().middlewareStack as unknown as Stack, 'dynamo', rule, i));
  (cfg.sqs ?? []).forEach((rule, i) => install(queue().middlewareStack as unknown as Stack, 'sqs', rule, i));

  return {
    stats,
    enable: () => void (enabled = true),
    disable: () => void (enabled = false),
    get enabled() {
      return enabled;
    },
    remove() {
      enabled = false;
      for (const { stack, name } of names) stack.remove(name);
      names.length = 0;
    },
    describe: () =>
      `faults seed=${cfg.seed} dynamo=${JSON.stringify(cfg.dynamo ?? [])} sqs=${JSON.stringify(cfg.sqs ?? [])}: ` +
      `${stats.injected} injected in ${stats.calls} calls ${JSON.stringify(stats.byError)}`,
  };
}
