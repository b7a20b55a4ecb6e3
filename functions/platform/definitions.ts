/**
 * The single table and the queues, as plain data. The CDK stack (lib/) and the local
 * runtime (local/) both build from these definitions, so they never drift.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  /**
   * The table's change stream (DynamoDB Streams): each written item's new image, read by the
   * event stream consumer (EVENT_STREAM below; docs/decisions/event-pipeline-streams.md).
   */
  stream: 'NEW_IMAGE' as const,
  indexes: [
    /** Lookups by alternate key (email, device, phrase id, reference, key id). */
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' as const },
    /** Lists per owner sorted by time. */
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' as const },
    /** Bank-owned lists sorted by time (a bank's transactions, subscriptions). */
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'ALL' as const },
    /** Provider-owned lists sorted by time (its merchants' transactions). */
    { name: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', projection: 'ALL' as const },
    /*
     * Owner lists whose items change after they are listed (a billing's status, refunds):
     * keys only, so an update that keeps the list keys writes no index copy, and the lists
     * read each page's items by key (platform/list-page.ts `hydrate`). One shared sort key
     * attribute `lsk` (`<createdAt>#<id>`) for the three. Bank and provider keys are sharded
     * (`<owner key>#<n>`, LIST_SHARDS): no owner's list is one hot partition.
     */
    /** A merchant's transactions (`MTXN#<merchantId>`); its day counters (`MVOL#<merchantId>`, ledger/day-counters.ts). */
    { name: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'lsk', projection: 'KEYS_ONLY' as const },
    /** A bank's transactions (`BTXN#<bankId>#<shard>`). */
    { name: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'lsk', projection: 'KEYS_ONLY' as const },
    /** A provider's merchants' transactions (`PTXN#<providerId>#<shard>`); their day counters (`PVOL#<providerId>#<p>`). */
    { name: 'gsi7', partitionKey: 'gsi7pk', sortKey: 'lsk', projection: 'KEYS_ONLY' as const },
    /** Sparse, sharded index of things due at a time: DUE#<shard> / <ISO>#<kind>#<id>. */
    { name: 'due', partitionKey: 'duePk', sortKey: 'dueSk', projection: 'KEYS_ONLY' as const },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/**
 * Shards of a bank's or a provider's list keys on gsi6 / gsi7 (`<key>#<0..LIST_SHARDS-1>`, by a
 * hash of the item's id). Lists read every shard, so the number only grows with a reader that
 * reads the old and the new count (the items never move).
 */
export const LIST_SHARDS = 8;

export interface QueueDefinition {
  /** Logical name; the URL comes from env QUEUE_URL_<NAME>. */
  name: string;
  /** Worker module under functions/ that consumes it (SQS event source). */
  worker: string;
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the DLQ. */
  maxReceiveCount: number;
  /** Lambda batch size for the event source. */
  batchSize: number;
  /** The event source's maximum concurrent invocations (Lambda `MaximumConcurrency`, 2..1000). */
  maxConcurrency?: number;
  /** Other queues its worker sends to (IAM), besides its own DLQ. */
  sendsTo?: string[];
}

export const QUEUES: QueueDefinition[] = [
  {
    name: 'webhooks',
    worker: 'workers/webhook-delivery',
    // A message is in flight only while its attempt runs (10 s timeout, with room to spare): a
    // retry is a new message sent with a delay (DESIGN 9.6).
    visibilityTimeoutSeconds: 60,
    // Generous: the worker itself decides when a delivery has used its attempts
    // (WEBHOOK_MAX_ATTEMPTS) and then lets the message go to the DLQ.
    maxReceiveCount: 50,
    batchSize: 10,
    // Fair delivery (functions/webhooks/lanes.ts): at most this many webhook invocations at
    // once, whatever hangs, so webhooks never take the API's Lambda concurrency.
    maxConcurrency: 20,
    // Its own queue too: a retry (and a message that must look again later) is a new delayed message.
    sendsTo: ['webhooks', 'webhooks-slow'],
  },
  {
    // The slow lane: deliveries to endpoints that answer slowly (or not at all), same worker.
    name: 'webhooks-slow',
    worker: 'workers/webhook-delivery',
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 50,
    batchSize: 10,
    maxConcurrency: 5,
    sendsTo: ['webhooks-slow', 'webhooks-dlq'],
  },
  {
    name: 'jobs',
    worker: 'workers/jobs',
    visibilityTimeoutSeconds: 120,
    maxReceiveCount: 5,
    batchSize: 10,
  },
];

export const dlqName = (q: QueueDefinition) => `${q.name}-dlq`;

/**
 * The event pipeline's stream consumer (DESIGN 9.6): a Lambda event source on the table's
 * stream, filtered to inserted event items that fan out (`EVT#` keys; a `webhook.test`
 * event names its one endpoint and is delivered by the transaction that made it), which makes
 * each event's delivery records and the events API's receipts and enqueues the deliveries.
 * The CDK stack (lib/workers.ts) and the local stream poller (local/streams.ts) both read this.
 */
/**
 * The attribute of an item that carries the event its write caused (events/outbox.ts
 * `carry`): the stream consumer fans the event out from that write's record. Every later
 * write of such an item that emits nothing removes it (`REMOVE emits`), so no other record
 * of the item shows it (a stream record keeps the image of its own write: removing it later
 * never takes it from the record that emitted).
 */
export const CARRIED_EVENT = 'emits';

export const EVENT_STREAM = {
  name: 'event-stream',
  worker: 'workers/event-stream',
  /** Records per invocation, and how long Lambda may wait to fill a batch (0: latency first). */
  batchSize: 100,
  maxBatchingWindowSeconds: 0,
  /** Concurrent batches per stream shard (records of one key stay in order; every event is its own key). */
  parallelizationFactor: 4,
  /** A failing batch is split in two and retried, each half up to this many times, then sent to `onFailure`. */
  bisectBatchOnError: true,
  maximumRetryAttempts: 10,
  /** From the oldest record kept (24 h): a stream enabled before the mapping loses nothing. */
  startingPosition: 'TRIM_HORIZON' as const,
  /** The SQS queue that receives the description of a batch whose retries ran out (ops: stream:replay). */
  onFailure: 'event-stream-failures',
  /**
   * Lambda event filters (a record that matches one is passed): inserted event items that are
   * neither a single endpoint's nor a carried event's (fanned out from the item that carries
   * it); and any write of an item that carries an event (events/outbox.ts `carry`: the
   * `emits` marker, which a later write that emits nothing removes).
   */
  filters: [
    {
      eventName: ['INSERT'],
      dynamodb: {
        Keys: { pk: { S: [{ prefix: 'EVT#' }] } },
        NewImage: { endpointId: { S: [{ exists: false }] }, carriedBy: { S: [{ exists: false }] } },
      },
    },
    {
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { [CARRIED_EVENT]: { M: { id: { S: [{ exists: true }] } } } } },
    },
  ],
  timeoutSeconds: 60,
} as const;

/** Workers that are not API routes. `queue` workers are SQS event sources of that queue. */
export interface WorkerDefinition {
  name: string;
  /** Module under functions/ exporting `handler`. */
  handler: string;
  trigger: { kind: 'schedule'; expression: string } | { kind: 'queue'; queue: string } | { kind: 'stream' };
  timeoutSeconds: number;
}

export const WORKERS: WorkerDefinition[] = [
  {
    name: 'scheduler-tick',
    handler: 'workers/scheduler-tick',
    trigger: { kind: 'schedule', expression: 'rate(1 minute)' },
    timeoutSeconds: 60,
  },
  ...QUEUES.map((q) => ({
    name: q.name,
    handler: q.worker,
    trigger: { kind: 'queue' as const, queue: q.name },
    // A queue's visibility timeout must be at least the consumer's timeout.
    timeoutSeconds: Math.min(q.visibilityTimeoutSeconds, 60),
  })),
  { name: EVENT_STREAM.name, handler: EVENT_STREAM.worker, trigger: { kind: 'stream' }, timeoutSeconds: EVENT_STREAM.timeoutSeconds },
];
