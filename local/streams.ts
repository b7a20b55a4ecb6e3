/**
 * The DynamoDB Streams event source of the local runtime (DESIGN 3, 9.6): a poller on DynamoDB
 * Local's stream of the table (DescribeStream / GetShardIterator / GetRecords on its own
 * endpoint) that invokes the consumer with real-shaped DynamoDB stream events, as Lambda's
 * event source mapping does:
 *
 * - every shard of the stream, a parent before its children, records in order;
 * - the mapping's filter (Lambda's event filter patterns: values, `prefix`, `exists`,
 *   `anything-but`), batches of `batchSize`, up to `parallelizationFactor` batches of one
 *   page at once (records of one key always in the same one);
 * - `ReportBatchItemFailures`: a batch is retried from its first failed record; with
 *   `bisectBatchOnError` a failing batch is split in two; after `maximumRetryAttempts`
 *   retries the batch's description goes to the `onFailure` queue (Lambda's message shape)
 *   and the poller moves on;
 * - a checkpoint per shard: the last record of a page is checkpointed only after every batch
 *   of the page is done. `npm start` keeps the checkpoints in a file (.local/), so a restart
 *   goes on where it stopped; without one it starts at the oldest record (TRIM_HORIZON).
 *
 * `crashBeforeCheckpoint(n)` (tests): the next n batches that the consumer finished end as if
 * the poller had died right then, before its checkpoint: the shard is read again from the
 * last checkpoint, and those records go to the consumer a second time.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** One stream event source: the mapping's settings and the function it invokes. */
export interface StreamSource {
  tableName: string;
  /** The ARN the records name as their source (the template's, in artifacts mode). */
  eventSourceArn?: string;
  batchSize: number;
  parallelizationFactor: number;
  maximumRetryAttempts: number;
  bisectBatchOnError: boolean;
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** Lambda filter patterns (any one matches); none: every record. */
  filters: unknown[];
  /** URL of the queue a batch whose retries ran out is described to. */
  onFailureUrl?: string;
  /** The function's ARN, for the failure record. */
  functionArn?: string;
  invoke(event: DynamoDBStreamEvent): Promise<unknown>;
}

export interface StreamPoller {
  stop(): Promise<void>;
  /** A batch is being processed, or records read are still to be. */
  busy(): boolean;
  /** Whether a full round over the shards that started at or after `t` (epoch ms) found nothing to do. */
  caughtUpSince(t: number): boolean;
  /** Ends the idle pause now: the next round starts at once (settle() waits for one). */
  wake(): void;
  /** A write to the table happened: read within WRITE_DELAY_MS (one read takes a burst of writes). */
  noteWrite(): void;
  /** Tests: the next `n` batches the consumer finishes end in a crash before the checkpoint. */
  crashBeforeCheckpoint(n: number): void;
  /** Why it is not caught up, for a settle that timed out (shards, rounds, the last error). */
  describe(): string;
  /** Batches sent to the consumer, and how many were sent again after a crash or failure. */
  readonly stats: { invocations: number; records: number; redelivered: number; failuresSent: number };
}

/** Where checkpoints live: a file (npm start) or memory (tests). */
export interface Checkpoints {
  get(stream: string, shard: string): string | undefined;
  set(stream: string, shard: string, seq: string): void;
}

export function memoryCheckpoints(): Checkpoints {
  const m = new Map<string, string>();
  return { get: (s, sh) => m.get(`${s} ${sh}`), set: (s, sh, q) => void m.set(`${s} ${sh}`, q) };
}

/** Checkpoints kept in a JSON file, written at most every 200 ms. */
export function fileCheckpoints(path: string): Checkpoints {
  let data: Record<string, string> = {};
  try {
    if (existsSync(path)) data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    data = {};
  }
  let writing = false;
  return {
    get: (s, sh) => data[`${s} ${sh}`],
    set: (s, sh, q) => {
      data[`${s} ${sh}`] = q;
      if (writing) return;
      writing = true;
      setTimeout(() => {
        writing = false;
        writeFileSync(path, JSON.stringify(data));
      }, 200).unref();
    },
  };
}

// ---- Lambda's event filter patterns (the subset mappings use: values, prefix, exists, anything-but) ----

function matchValue(rules: unknown[], value: unknown, present: boolean): boolean {
  return rules.some((rule) => {
    if (rule !== null && typeof rule === 'object' && !Array.isArray(rule)) {
      const r = rule as Record<string, unknown>;
      if ('exists' in r) return r.exists === present;
      if (!present) return false;
      if ('prefix' in r) return typeof value === 'string' && value.startsWith(String(r.prefix));
      if ('anything-but' in r) return !([r['anything-but']].flat() as unknown[]).includes(value);
      return false;
    }
    return present && rule === value;
  });
}

/** Whether `event` (a record, as JSON) matches one Lambda filter pattern. */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern)) {
    // A leaf list of rules: the event's value at this path (a list matches if any member does).
    const present = event !== undefined;
    if (Array.isArray(event)) return event.some((v) => matchValue(pattern, v, true));
    return matchValue(pattern, event, present);
  }
  if (pattern === null || typeof pattern !== 'object') return false;
  const e = event !== null && typeof event === 'object' ? (event as Record<string, unknown>) : {};
  return Object.entries(pattern as Record<string, unknown>).every(([k, p]) => matchesPattern(p, e[k]));
}

// ---- the poller ----

interface ShardState {
  id: string;
  parent?: string;
  closed: boolean;
  iterator?: string;
  drained: boolean;
}

const keyLane = (r: DynamoDBRecord, lanes: number) =>
  createHash('sha1')
    .update(JSON.stringify(r.dynamodb?.Keys ?? {}))
    .digest()
    .readUInt32BE(0) % lanes;

/**
 * What Lambda hands the function of one read of a shard: the records a filter passes (the
 * others are discarded, no invocation), by lane (the parallelization factor: a key's records
 * stay in one lane, in order). Each lane's records go in batches of `batchSize`; an empty
 * lane is no invocation. The bench counts invocations with it (bench/lib/proxies.ts).
 */
export function recordsByLane(
  records: DynamoDBRecord[],
  source: Pick<StreamSource, 'filters' | 'parallelizationFactor'>,
): DynamoDBRecord[][] {
  const wanted = source.filters.length ? records.filter((r) => source.filters.some((p) => matchesPattern(p, r))) : records;
  const lanes = Math.max(1, source.parallelizationFactor);
  const byLane = Array.from({ length: lanes }, () => [] as DynamoDBRecord[]);
  for (const r of wanted) byLane[keyLane(r, lanes)]!.push(r);
  return byLane;
}

type Attr = Record<string, unknown>;

/**
 * An attribute value as DynamoDB sent it. The Streams client reads an empty map (`{"M":{}}`)
 * back as `{}` (a union with no member set); an empty object is nothing else, so it is put
 * back. Maps and lists are walked.
 */
function attrValue(v: Attr): Attr {
  if (Object.keys(v).length === 0) return { M: {} };
  if (v.M) return { M: image(v.M as Record<string, Attr>) };
  if (Array.isArray(v.L)) return { L: (v.L as Attr[]).map(attrValue) };
  return v;
}

const image = (img: Record<string, Attr> | undefined) => img && Object.fromEntries(Object.entries(img).map(([k, v]) => [k, attrValue(v)]));

/** The Lambda-shaped record of a stream record. */
export function lambdaRecord(r: _Record, arn: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  const at = d.ApproximateCreationDateTime;
  return {
    eventID: r.eventID,
    eventName: r.eventName as DynamoDBRecord['eventName'],
    eventVersion: r.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: r.awsRegion === 'ddblocal' ? 'us-east-1' : r.awsRegion,
    dynamodb: {
      ...(at ? { ApproximateCreationDateTime: Math.floor(new Date(at).getTime() / 1000) } : {}),
      Keys: d.Keys as never,
      ...(d.NewImage ? { NewImage: image(d.NewImage as unknown as Record<string, Attr>) as never } : {}),
      ...(d.OldImage ? { OldImage: image(d.OldImage as unknown as Record<string, Attr>) as never } : {}),
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
    eventSourceARN: arn,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long after a write the poller reads: the rest of a burst of writes lands in the same
 * read (a year of a test clock: ~9,300 writes made 6,199 reads at 25 ms). settle() and other
 * wakes read at once.
 */
const WRITE_DELAY_MS = 100;

/** GetRecords errors answered by a new iterator from the checkpoint (AWS's and DynamoDB Local's). */
const REREAD = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

export function startStreamPoller(
  ddb: DynamoDBClient,
  sqs: SQSClient,
  source: StreamSource,
  opts: {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
    checkpoints?: Checkpoints;
    pollMs?: number;
  },
): StreamPoller {
  const streams = new DynamoDBStreamsClient({
    endpoint: opts.endpoint,
    region: opts.region,
    credentials: opts.credentials,
    maxAttempts: 2,
  });
  const checkpoints = opts.checkpoints ?? memoryCheckpoints();
  // Quiet: a read every `pollMs` (1 s), for writes no client of this process made (another
  // process's, e.g. the ops CLI's against npm start). Every write of this process (handlers in
  // source mode, the tests' own) and of artifacts mode's bundles (through its gateway) has the
  // poller read WRITE_DELAY_MS later (noteWrite()), settle() at once (wake()), so it does not
  // also poll fast after activity:
  // DynamoDB Local's GetRecords costs ~10 ms of its CPU on a fresh instance (~40 after 20,000
  // records of any table, deleted ones included), and a test file's stack polling after each
  // write spent more on empty reads than on its records.
  const pollMs = opts.pollMs ?? Number(process.env.LOCAL_STREAM_POLL_MS ?? 1000);
  const stats = { invocations: 0, records: 0, redelivered: 0, failuresSent: 0 };
  let running = true;
  let inFlight = 0;
  let crashes = 0;
  let lastEmptyRoundStart = 0;
  let lastRoundEnd = 0;
  let rounds = 0;
  let lastError = '';
  /** Ends the idle pause within `delayMs` (sooner if it was to end sooner). */
  let wakeUp: (delayMs: number) => void = () => undefined;
  /** A write was noted while a round ran. */
  let writeSeen = false;
  /** A wake that came while a round was running: the next round starts without a pause. */
  let wakeRequested = false;
  const shards = new Map<string, ShardState>();
  let streamArn: string | undefined;
  let lastDescribe = 0;
  /** A shard ended since the last listing: list again before the next read. */
  let describeAgain = false;

  const discover = async () => {
    if (!streamArn) {
      const t = await ddb.send(new DescribeTableCommand({ TableName: source.tableName }));
      streamArn = t.Table?.LatestStreamArn;
      if (!streamArn) throw new Error(`table ${source.tableName} has no stream (StreamSpecification)`);
    }
    let start: string | undefined;
    do {
      const out = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      for (const sh of out.StreamDescription?.Shards ?? ([] as Shard[])) {
        const known = shards.get(sh.ShardId!);
        const closed = sh.SequenceNumberRange?.EndingSequenceNumber !== undefined;
        if (known) known.closed = closed;
        else shards.set(sh.ShardId!, { id: sh.ShardId!, parent: sh.ParentShardId, closed, drained: false });
      }
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    lastDescribe = Date.now();
    describeAgain = false;
  };

  /** Where a shard is read from: after its checkpoint, else the mapping's starting position. */
  const iteratorOf = async (sh: ShardState): Promise<string | undefined> => {
    const at = checkpoints.get(streamArn!, sh.id);
    const input = at
      ? { StreamArn: streamArn, ShardId: sh.id, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: at }
      : { StreamArn: streamArn, ShardId: sh.id, ShardIteratorType: source.startingPosition };
    try {
      return (await streams.send(new GetShardIteratorCommand(input))).ShardIterator;
    } catch (e) {
      if ((e as Error).name !== 'TrimmedDataAccessException' || !at) throw e;
      return (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: sh.id, ShardIteratorType: 'TRIM_HORIZON' })))
        .ShardIterator;
    }
  };

  const describeFailure = async (batch: DynamoDBRecord[], shardId: string, invokeCount: number) => {
    stats.failuresSent++;
    if (!source.onFailureUrl) return;
    const first = batch[0]!.dynamodb!;
    const last = batch[batch.length - 1]!.dynamodb!;
    const iso = (s?: number) => (s ? new Date(s * 1000).toISOString() : new Date().toISOString());
    await sqs
      .send(
        new SendMessageCommand({
          QueueUrl: source.onFailureUrl,
          MessageBody: JSON.stringify({
            requestContext: {
              requestId: createHash('sha1').update(`${shardId}${first.SequenceNumber}${Date.now()}`).digest('hex'),
              functionArn: source.functionArn ?? 'local',
              condition: 'RetryAttemptsExhausted',
              approximateInvokeCount: invokeCount,
            },
            responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
            version: '1.0',
            timestamp: new Date().toISOString(),
            DDBStreamBatchInfo: {
              shardId,
              startSequenceNumber: first.SequenceNumber,
              endSequenceNumber: last.SequenceNumber,
              approximateArrivalOfFirstRecord: iso(first.ApproximateCreationDateTime),
              approximateArrivalOfLastRecord: iso(last.ApproximateCreationDateTime),
              batchSize: batch.length,
              streamArn,
            },
          }),
        }),
      )
      .catch((e) => console.error('stream poller: could not describe a failed batch:', (e as Error).message));
  };

  /** One batch to the consumer, as Lambda retries it (from the first failed record; split on error). */
  const deliver = async (batch: DynamoDBRecord[], shardId: string, retriesLeft: number, invokeCount = 1): Promise<void> => {
    if (batch.length === 0 || !running) return;
    stats.invocations++;
    stats.records += batch.length;
    let failedFrom = -1;
    try {
      const out = (await source.invoke({ Records: batch })) as DynamoDBBatchResponse | undefined;
      const failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      if (failed.size) failedFrom = batch.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
      if (failed.size && failedFrom < 0) failedFrom = 0; // an unknown identifier fails the whole batch, as on Lambda
    } catch (e) {
      // The invocation failed as a whole (Lambda logs the function's error; so does this).
      if (process.env.LOCAL_STREAM_QUIET !== '1') console.error(`stream consumer failed: ${(e as Error).message}`);
      failedFrom = 0;
    }
    if (failedFrom < 0) return;
    const rest = batch.slice(failedFrom);
    stats.redelivered += rest.length;
    if (retriesLeft <= 0) return describeFailure(rest, shardId, invokeCount);
    await sleep(Math.min(2000, 50 * 2 ** invokeCount));
    if (source.bisectBatchOnError && rest.length > 1) {
      const half = Math.ceil(rest.length / 2);
      await deliver(rest.slice(0, half), shardId, retriesLeft - 1, invokeCount + 1);
      await deliver(rest.slice(half), shardId, retriesLeft - 1, invokeCount + 1);
    } else await deliver(rest, shardId, retriesLeft - 1, invokeCount + 1);
  };

  /** Read one page of a shard and hand it to the consumer; true when it had records. */
  const pollShard = async (sh: ShardState): Promise<boolean> => {
    sh.iterator ??= await iteratorOf(sh);
    if (!sh.iterator) {
      sh.drained = true;
      return false;
    }
    let out: GetRecordsCommandOutput;
    try {
      out = await streams.send(new GetRecordsCommand({ ShardIterator: sh.iterator, Limit: 1000 }));
    } catch (e) {
      // An iterator that expired, or (DynamoDB Local, when the first record lands in a shard read
      // while empty) that it says points at trimmed records: take a new one from the checkpoint
      // at once. Anything else: the same, after the loop's pause.
      sh.iterator = undefined;
      lastError = `${(e as Error).name} (iterator taken again)`;
      if (REREAD.has((e as Error).name)) return true;
      throw e;
    }
    const records = out.Records ?? [];
    if (records.length === 0) {
      sh.iterator = out.NextShardIterator;
      if (!sh.iterator) sh.drained = describeAgain = true;
      return false;
    }
    const arn = source.eventSourceArn ?? streamArn!;
    const byLane = recordsByLane(
      records.map((r) => lambdaRecord(r, arn)),
      source,
    );
    const wanted = byLane.reduce((n, lane) => n + lane.length, 0);
    inFlight++;
    try {
      let crashed = false;
      await Promise.all(
        byLane.map(async (lane) => {
          for (let i = 0; i < lane.length && running; i += source.batchSize) {
            await deliver(lane.slice(i, i + source.batchSize), sh.id, source.maximumRetryAttempts);
            if (crashes > 0) {
              crashes--;
              crashed = true;
            }
          }
        }),
      );
      if (crashed) {
        // Died before the checkpoint: read again from the last one.
        stats.redelivered += wanted;
        sh.iterator = undefined;
        return true;
      }
      checkpoints.set(streamArn!, sh.id, records[records.length - 1]!.dynamodb!.SequenceNumber!);
      sh.iterator = out.NextShardIterator;
      if (!sh.iterator) sh.drained = describeAgain = true;
      return true;
    } finally {
      inFlight--;
    }
  };

  const loop = (async () => {
    while (running) {
      const roundStart = Date.now();
      wakeRequested = false;
      let found = false;
      try {
        // Shards are listed again every 10 s, and at once when one of them has ended (its
        // children are then to be read).
        if (!streamArn || describeAgain || Date.now() - lastDescribe > 10_000) await discover();
        for (const sh of shards.values()) {
          if (sh.drained || !running) continue;
          const parent = sh.parent ? shards.get(sh.parent) : undefined;
          if (parent && !parent.drained) continue; // a parent's records first
          if (await pollShard(sh)) found = true;
        }
      } catch (e) {
        if (!running) break;
        found = true; // not known to be caught up
        lastError = `${(e as Error).name}: ${(e as Error).message}`;
        console.error('stream poller:', (e as Error).message);
        await sleep(500);
      }
      if (!found && inFlight === 0) lastEmptyRoundStart = roundStart;
      lastRoundEnd = Date.now();
      rounds++;
      if (found || wakeRequested) continue;
      // Writes seen during the round: read again WRITE_DELAY_MS after it; otherwise at the next
      // write (WRITE_DELAY_MS after it), a wake (at once) or pollMs.
      const first = writeSeen ? WRITE_DELAY_MS : pollMs;
      writeSeen = false;
      await new Promise<void>((res) => {
        let timer = setTimeout(res, first);
        let due = Date.now() + first;
        wakeUp = (delayMs) => {
          if (Date.now() + delayMs >= due) return;
          clearTimeout(timer);
          due = Date.now() + delayMs;
          timer = setTimeout(res, delayMs);
        };
      });
      wakeUp = () => undefined;
    }
  })();

  return {
    stats,
    busy: () => inFlight > 0,
    describe: () => {
      const now = Date.now();
      const open = [...shards.values()].filter((sh) => !sh.drained).length;
      return `stream: ${inFlight} page(s) at the consumer, ${shards.size} shard(s) (${open} open), ${rounds} round(s), last round ended ${now - lastRoundEnd} ms ago, last empty round started ${now - lastEmptyRoundStart} ms ago, ${stats.invocations} invocation(s), ${stats.redelivered} redelivered${lastError ? `, last error ${lastError}` : ''}`;
    },
    caughtUpSince: (t) => lastEmptyRoundStart >= t && inFlight === 0,
    wake: () => {
      wakeRequested = true;
      wakeUp(0);
    },
    noteWrite: () => {
      writeSeen = true;
      wakeUp(WRITE_DELAY_MS);
    },
    crashBeforeCheckpoint: (n) => void (crashes += n),
    stop: async () => {
      running = false;
      await loop;
      streams.destroy();
    },
  };
}
