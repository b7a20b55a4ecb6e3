/**
 * The bench's measuring instrument: HTTP proxies between the service and its local
 * DynamoDB / SQS, so that every request any code path makes (handlers, workers, a stream
 * consumer, in process or in artifacts mode's threads) is seen as it goes over the wire,
 * whatever client sent it. Nothing in functions/ or local/ knows about them.
 *
 * DynamoDB (`DynamoProxy`):
 * - counts every request by operation, label (the bench's current step) and window (the
 *   request path of one HTTP call, see `holdConsumers`);
 * - for every item written (PutItem, UpdateItem, DeleteItem, each element of BatchWriteItem
 *   and of TransactWriteItems, ConditionChecks included) reads the item before and after the
 *   write straight from DynamoDB Local (uncounted), holding a per-item lock around the three
 *   so that concurrent writers of one item cannot blur the images, and charges it with
 *   bench/lib/write-units.ts (base table and every GSI copy, per partition key);
 * - computes read units from the items returned (4 KB units; eventually consistent: half;
 *   transactional reads: 2x);
 * - DynamoDB Streams requests (GetRecords ...) are counted apart (a Lambda trigger reads its
 *   stream for free) and, while `holdConsumers` is on, their answers are held back; the
 *   consumer's invocations are counted from each answer as Lambda makes them: the records
 *   the event source's filters pass, by key lane, in batches (local/streams.ts
 *   `recordsByLane`), so a read whose records no filter passes is no invocation.
 *
 * SQS (`SqsProxy`): counts requests by operation, messages sent, receives that returned
 * messages (empty long polls are the event source's fixed cost, counted apart), deletes; it
 * holds ReceiveMessage answers while `holdConsumers` is on.
 *
 * `holdConsumers()` is what makes "the DynamoDB requests on the request path of one bill"
 * measurable on a local stack where the workers run in the same process: while an HTTP call
 * is measured, no consumer (SQS poller, stream poller) gets anything to work on, so every
 * DynamoDB request arriving meanwhile is the handler's.
 */
import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_STREAM, TABLE } from '../../functions/platform/definitions';
import { lambdaRecord, recordsByLane } from '../../local/streams';
import {
  chargeWrite,
  itemSize,
  keyString,
  readUnitsOf,
  sameValue,
  type TableShape,
  type WireItem,
  type WriteAction,
  type WriteCharge,
} from './write-units';
import { bump } from './stats';

type Json = Record<string, any>;

interface Forwarded {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A transparent HTTP forwarder with a hook around each request. */
abstract class Forwarder {
  url = '';
  private server: Server | undefined;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private readonly target: URL;
  /** Requests being handled. */
  inFlight = 0;
  /** Of which consumer polls (long-poll receives, stream reads): not work of the service's own. */
  protected polls = 0;
  /** Requests in flight that are not consumer polls. */
  get working(): number {
    return this.inFlight - this.polls;
  }
  /** performance.now() of the last request that did work (see `active`). */
  lastActivity = 0;
  protected held = false;
  private waiters: (() => void)[] = [];

  constructor(targetUrl: string) {
    this.target = new URL(targetUrl);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.inFlight++;
        this.handle(req.headers, body, req.method ?? 'POST', req.url ?? '/')
          .then(
            (out) => {
              res.writeHead(out.status, out.headers);
              res.end(out.body);
            },
            (e) => {
              res.writeHead(502, { 'content-type': 'text/plain' });
              res.end(String((e as Error).message));
            },
          )
          .finally(() => this.inFlight--);
      });
    });
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.releaseConsumers();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections?.();
    this.agent.destroy();
  }

  /** Hold back the answers of consumer polls (SQS ReceiveMessage, Streams GetRecords) until released. */
  holdConsumers(): void {
    this.held = true;
  }

  releaseConsumers(): void {
    this.held = false;
    for (const w of this.waiters.splice(0)) w();
  }

  protected async whileHeld(): Promise<void> {
    while (this.held) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Resolves once no request is in flight and none did work for `quietMs`. */
  async waitIdle(quietMs = 250, timeoutMs = 120_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (this.working === 0 && performance.now() - this.lastActivity >= quietMs) return;
      if (performance.now() > deadline) throw new Error(`${this.constructor.name}: not idle after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  protected forward(method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Forwarded> {
    return new Promise((res, rej) => {
      const r = httpRequest(
        {
          host: this.target.hostname,
          port: this.target.port,
          method,
          path,
          headers,
          agent: this.agent,
        },
        (resp) => {
          const chunks: Buffer[] = [];
          resp.on('data', (c: Buffer) => chunks.push(c));
          resp.on('end', () => res({ status: resp.statusCode ?? 502, headers: resp.headers, body: Buffer.concat(chunks) }));
          resp.on('error', rej);
        },
      );
      r.on('error', rej);
      r.end(body);
    });
  }

  protected abstract handle(headers: IncomingHttpHeaders, body: Buffer, method: string, path: string): Promise<Forwarded>;
}

const parse = (b: Buffer): Json | undefined => {
  try {
    return b.length ? (JSON.parse(b.toString('utf8')) as Json) : undefined;
  } catch {
    return undefined;
  }
};

const targetOf = (h: IncomingHttpHeaders) => String(h['x-amz-target'] ?? '');

// ------------------------------------------------------------------------------------------
// DynamoDB

export interface WriteRecord {
  label: string;
  window: string | undefined;
  /** The request: PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems. */
  op: string;
  action: WriteAction;
  transactional: boolean;
  conditionFailed: boolean;
  pk: string;
  sk: string;
  charge: WriteCharge;
  /** Attributes the write added, removed or changed. */
  changed: string[];
  /** The item did not exist before. */
  created: boolean;
}

export interface RequestRecord {
  label: string;
  window: string | undefined;
  op: string;
  ok: boolean;
  error?: string;
  /** Read units computed from the items returned (reads only). */
  readUnits: number;
  /** The read units by partition key read (`table` or the index's name): the per-key read heat. */
  reads?: { index: string; key: string; units: number }[];
  /** Base-table partition keys read (reads only): for request-path details. */
  at: number;
}

export interface CancelledRecord {
  label: string;
  op: string;
  reasons: string[];
  items: number;
}

type KeyOf = { pk: string; sk: string };

interface PendingWrite {
  action: WriteAction;
  transactional: boolean;
  key: Json; // wire key attributes
  keyString: string;
}

const TABLE_SHAPE: TableShape = TABLE;

export class DynamoProxy extends Forwarder {
  /** Label of the bench's current step (every request is tagged with it). */
  label = 'setup';
  /** The request-path window being measured, if any (see `holdConsumers`). */
  window: string | undefined;
  /** Off: forward and count requests only (no images, no locks). */
  accounting = false;
  writes: WriteRecord[] = [];
  requests: RequestRecord[] = [];
  cancelled: CancelledRecord[] = [];
  /** Streams API requests by operation (not table requests). */
  streams: Record<string, number> = {};
  /** Stream records handed out by GetRecords, and the consumer invocations Lambda would make of them (filtered, by lane). */
  streamRecords = 0;
  streamBatches = 0;
  private readonly direct: DynamoDBClient;
  private readonly locks = new Map<string, Promise<void>>();

  constructor(targetUrl: string, credentials: { accessKeyId: string; secretAccessKey: string }, region: string) {
    super(targetUrl);
    this.direct = new DynamoDBClient({ endpoint: targetUrl, region, credentials, maxAttempts: 3 });
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.direct.destroy();
  }

  /** Forget what was recorded (labels keep going). */
  clear(): void {
    this.writes = [];
    this.requests = [];
    this.cancelled = [];
    this.streams = {};
    this.streamRecords = 0;
    this.streamBatches = 0;
  }

  protected async handle(headers: IncomingHttpHeaders, body: Buffer, method: string, path: string): Promise<Forwarded> {
    const target = targetOf(headers);
    const [service, op = ''] = target.split('.');
    if (service?.startsWith('DynamoDBStreams')) return this.handleStream(op, headers, body, method, path);
    const label = this.label;
    const window = this.window;
    const input = parse(body);
    this.lastActivity = performance.now();
    const writes = this.accounting && input ? this.pendingWrites(op, input) : [];
    const release = writes.length ? await this.lock(writes.map((w) => w.keyString)) : undefined;
    try {
      const before = writes.length ? await this.images(input!, writes) : new Map<string, WireItem>();
      const out = await this.forward(method, path, headers, body);
      this.lastActivity = performance.now();
      const output = parse(out.body);
      const ok = out.status === 200;
      const error = ok
        ? undefined
        : String(output?.__type ?? out.status)
            .split('#')
            .pop();
      this.requests.push({
        label,
        window,
        op,
        ok,
        error,
        ...readRecord(op, ok ? input : undefined, output),
        at: performance.now(),
      });
      if (!writes.length || !input) return out;
      if (ok) {
        const unprocessed = unprocessedKeys(op, output);
        const after = await this.images(
          input,
          writes.filter((w) => !unprocessed.has(w.keyString)),
        );
        for (const w of writes) {
          if (unprocessed.has(w.keyString)) continue;
          this.record(label, window, op, w, before.get(w.keyString), after.get(w.keyString), false);
        }
      } else if (error === 'ConditionalCheckFailedException') {
        const w = writes[0]!;
        this.record(label, window, op, w, before.get(w.keyString), before.get(w.keyString), true);
      } else if (error === 'TransactionCanceledException') {
        const reasons =
          String(output?.message ?? output?.Message ?? '')
            .match(/\[(.*)\]/)?.[1]
            ?.split(/,\s*/) ?? [];
        this.cancelled.push({ label, op, reasons, items: writes.length });
      }
      return out;
    } finally {
      release?.();
    }
  }

  private async handleStream(op: string, headers: IncomingHttpHeaders, body: Buffer, method: string, path: string): Promise<Forwarded> {
    bump(this.streams, op);
    this.polls++;
    try {
      return await this.streamRequest(op, headers, body, method, path);
    } finally {
      this.polls--;
    }
  }

  private async streamRequest(op: string, headers: IncomingHttpHeaders, body: Buffer, method: string, path: string): Promise<Forwarded> {
    const out = await this.forward(method, path, headers, body);
    if (op === 'GetRecords') {
      const records = (parse(out.body)?.Records as Parameters<typeof lambdaRecord>[0][] | undefined) ?? [];
      const n = records.length;
      if (n > 0) {
        this.streamRecords += n;
        const lanes = recordsByLane(
          records.map((r) => lambdaRecord(r, '')),
          { filters: [...EVENT_STREAM.filters], parallelizationFactor: EVENT_STREAM.parallelizationFactor },
        );
        this.streamBatches += lanes.reduce((k, lane) => k + Math.ceil(lane.length / EVENT_STREAM.batchSize), 0);
        this.lastActivity = performance.now();
        // The records are the consumer's work: none of it while a request path is measured.
        await this.whileHeld();
      }
    }
    return out;
  }

  private record(
    label: string,
    window: string | undefined,
    op: string,
    w: PendingWrite,
    before: WireItem | undefined,
    after: WireItem | undefined,
    conditionFailed: boolean,
  ): void {
    const charge = chargeWrite({ action: w.action, transactional: w.transactional, conditionFailed, before, after }, TABLE_SHAPE);
    const k = keyOfWire(w.key);
    const names = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
    const changed = [...names].filter((n) => !sameValue(before?.[n], after?.[n])).sort();
    this.writes.push({
      label,
      window,
      op,
      action: w.action,
      transactional: w.transactional,
      conditionFailed,
      pk: k.pk,
      sk: k.sk,
      charge,
      changed,
      created: !before && !!after,
    });
  }

  private pendingWrites(op: string, input: Json): PendingWrite[] {
    const one = (action: WriteAction, key: Json | undefined, transactional: boolean): PendingWrite[] => {
      if (!key) return [];
      const k = pickKey(key);
      return [{ action, transactional, key: k, keyString: keyId(k) }];
    };
    switch (op) {
      case 'PutItem':
        return one('Put', input.Item, false);
      case 'UpdateItem':
        return one('Update', input.Key, false);
      case 'DeleteItem':
        return one('Delete', input.Key, false);
      case 'BatchWriteItem':
        return Object.values((input.RequestItems ?? {}) as Record<string, Json[]>).flatMap((reqs) =>
          reqs.flatMap((r) => (r.PutRequest ? one('Put', r.PutRequest.Item, false) : one('Delete', r.DeleteRequest?.Key, false))),
        );
      case 'TransactWriteItems':
        return ((input.TransactItems ?? []) as Json[]).flatMap((t) => {
          if (t.Put) return one('Put', t.Put.Item, true);
          if (t.Update) return one('Update', t.Update.Key, true);
          if (t.Delete) return one('Delete', t.Delete.Key, true);
          if (t.ConditionCheck) return one('ConditionCheck', t.ConditionCheck.Key, true);
          return [];
        });
      default:
        return [];
    }
  }

  /** The items' current images, strongly consistent, straight from DynamoDB Local. */
  private async images(input: Json, writes: PendingWrite[]): Promise<Map<string, WireItem>> {
    const tableName = tableOf(input);
    const out = new Map<string, WireItem>();
    const keys = [...new Map(writes.map((w) => [w.keyString, w.key])).values()];
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Json[] | undefined = keys.slice(i, i + 100);
      for (let round = 0; pending?.length && round < 20; round++) {
        const r = await this.direct.send(
          new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: pending as never, ConsistentRead: true } } }),
        );
        for (const item of (r.Responses?.[tableName] ?? []) as unknown as WireItem[]) out.set(keyId(pickKey(item)), item);
        pending = r.UnprocessedKeys?.[tableName]?.Keys as Json[] | undefined;
      }
    }
    return out;
  }

  /** Per-item locks, taken in key order (no deadlock between two writers of overlapping items). */
  private async lock(keys: string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const k of [...new Set(keys)].sort()) {
      while (this.locks.has(k)) await this.locks.get(k);
      let done!: () => void;
      this.locks.set(k, new Promise<void>((r) => (done = r)));
      releases.push(() => {
        this.locks.delete(k);
        done();
      });
    }
    return () => {
      for (const r of releases) r();
    };
  }
}

const pickKey = (item: Json): Json => {
  const k: Json = { [TABLE.partitionKey]: item[TABLE.partitionKey] };
  if (TABLE.sortKey) k[TABLE.sortKey] = item[TABLE.sortKey];
  return k;
};
const keyOfWire = (k: Json): KeyOf => ({ pk: keyString(k[TABLE.partitionKey]), sk: keyString(k[TABLE.sortKey]) });
const keyId = (k: Json) => {
  const x = keyOfWire(k);
  return `${x.pk}\u0000${x.sk}`;
};

function tableOf(input: Json): string {
  if (input.TableName) return input.TableName as string;
  if (input.RequestItems) return Object.keys(input.RequestItems)[0]!;
  const t = (input.TransactItems as Json[] | undefined)?.[0];
  const inner = t && (t.Put ?? t.Update ?? t.Delete ?? t.ConditionCheck ?? t.Get);
  return inner?.TableName as string;
}

function unprocessedKeys(op: string, output: Json | undefined): Set<string> {
  const s = new Set<string>();
  if (op !== 'BatchWriteItem' || !output?.UnprocessedItems) return s;
  for (const reqs of Object.values(output.UnprocessedItems as Record<string, Json[]>))
    for (const r of reqs) s.add(keyId(pickKey(r.PutRequest?.Item ?? r.DeleteRequest?.Key)));
  return s;
}

/** A read request's units and the partition keys they were read from (split evenly over a batch's keys). */
function readRecord(op: string, input: Json | undefined, output: Json | undefined): Pick<RequestRecord, 'readUnits' | 'reads'> {
  if (!input) return { readUnits: 0 };
  const units = readUnits(op, input, output);
  if (!units) return { readUnits: 0 };
  const keys = readKeysOf(op, input);
  return { readUnits: units, reads: keys.map((k) => ({ ...k, units: units / keys.length })) };
}

/** The partition keys a read asks for: Get/BatchGet/TransactGet by key, a Query by its key condition's equality on a `pk`. */
function readKeysOf(op: string, input: Json): { index: string; key: string }[] {
  const s = (v: Json | undefined) => String(v?.S ?? v?.N ?? '');
  switch (op) {
    case 'GetItem':
      return [{ index: 'table', key: s(input.Key?.pk) }];
    case 'BatchGetItem':
      return Object.values((input.RequestItems ?? {}) as Record<string, Json>).flatMap((r) =>
        ((r.Keys ?? []) as Json[]).map((k) => ({ index: 'table', key: s(k.pk) })),
      );
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Json[]).map((t) => ({ index: 'table', key: s(t.Get?.Key?.pk) }));
    case 'Query': {
      const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
      for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/g)) {
        const name = names[m[1]!] ?? m[1]!;
        if (/pk$/i.test(name)) return [{ index: String(input.IndexName ?? 'table'), key: s(input.ExpressionAttributeValues?.[m[2]!]) }];
      }
      return [{ index: String(input.IndexName ?? 'table'), key: '?' }];
    }
    default:
      return [{ index: 'table', key: '?' }];
  }
}

/** Read units of a read request, from the items it returned. */
function readUnits(op: string, input: Json, output: Json | undefined): number {
  if (!output) return 0;
  switch (op) {
    case 'GetItem':
      return readUnitsOf(output.Item ? itemSize(output.Item as WireItem) : 0, input.ConsistentRead === true);
    case 'BatchGetItem': {
      let u = 0;
      for (const [t, items] of Object.entries((output.Responses ?? {}) as Record<string, WireItem[]>)) {
        const consistent = input.RequestItems?.[t]?.ConsistentRead === true;
        for (const it of items) u += readUnitsOf(itemSize(it), consistent);
        // keys asked for and not found still cost a read each
        const asked = (input.RequestItems?.[t]?.Keys as unknown[] | undefined)?.length ?? 0;
        const unprocessed = (output.UnprocessedKeys?.[t]?.Keys as unknown[] | undefined)?.length ?? 0;
        u += Math.max(0, asked - unprocessed - items.length) * readUnitsOf(0, consistent);
      }
      return u;
    }
    case 'TransactGetItems':
      return ((output.Responses ?? []) as Json[]).reduce((a, r) => a + 2 * readUnitsOf(r.Item ? itemSize(r.Item as WireItem) : 0, true), 0);
    case 'Query':
    case 'Scan': {
      const items = (output.Items ?? []) as WireItem[];
      let bytes = items.reduce((a, it) => a + itemSize(it), 0);
      const count = Number(output.Count ?? items.length);
      const scanned = Number(output.ScannedCount ?? count);
      // A filter (or Select COUNT) reads more than it returns: scale by the items evaluated.
      if (scanned > items.length && items.length > 0) bytes = (bytes / items.length) * scanned;
      else if (scanned > items.length) bytes = scanned * 200; // COUNT: sizes unknown, ~200 B each
      const consistent = input.ConsistentRead === true && !input.IndexName;
      return readUnitsOf(bytes, consistent);
    }
    default:
      return 0;
  }
}

// ------------------------------------------------------------------------------------------
// SQS

export interface SqsCount {
  /** Requests by operation (empty ReceiveMessage long polls apart, in `emptyReceives`). */
  byOp: Record<string, number>;
  messagesSent: number;
  /** Messages sent, by queue name. */
  sentTo: Record<string, number>;
  messagesReceived: number;
  emptyReceives: number;
}

export const emptySqsCount = (): SqsCount => ({ byOp: {}, messagesSent: 0, sentTo: {}, messagesReceived: 0, emptyReceives: 0 });

export class SqsProxy extends Forwarder {
  label = 'setup';
  byLabel: Record<string, SqsCount> = {};
  /** When set: the duration of every consumer batch, from its ReceiveMessage answer to the delete of its messages. */
  trackInvocations = false;
  invocations: { ms: number; messages: number }[] = [];
  private batchOf = new Map<string, { t: number; messages: number; done: boolean }>();

  clear(): void {
    this.byLabel = {};
    this.invocations = [];
    this.batchOf.clear();
  }

  private count(): SqsCount {
    this.byLabel[this.label] ??= emptySqsCount();
    return this.byLabel[this.label]!;
  }

  protected async handle(headers: IncomingHttpHeaders, body: Buffer, method: string, path: string): Promise<Forwarded> {
    const target = targetOf(headers);
    // JSON protocol (AmazonSQS.<Op>); anything else (S3 on the same emulator, the query protocol) passes through.
    const op = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    const input = op ? parse(body) : undefined;
    if (op === 'ReceiveMessage') this.polls++;
    let out: Forwarded;
    try {
      out = await this.forward(method, path, headers, body);
    } finally {
      if (op === 'ReceiveMessage') this.polls--;
    }
    if (!op) return out;
    const c = this.count();
    if (op === 'ReceiveMessage') {
      const n = (parse(out.body)?.Messages as unknown[] | undefined)?.length ?? 0;
      if (n === 0) {
        c.emptyReceives++;
        return out;
      }
      bump(c.byOp, op);
      c.messagesReceived += n;
      this.lastActivity = performance.now();
      await this.whileHeld();
      if (this.trackInvocations) {
        const batch = { t: performance.now(), messages: n, done: false };
        for (const m of (parse(out.body)?.Messages ?? []) as Json[]) this.batchOf.set(String(m.ReceiptHandle), batch);
      }
      return out;
    }
    this.lastActivity = performance.now();
    bump(c.byOp, op);
    if (this.trackInvocations && (op === 'DeleteMessageBatch' || op === 'DeleteMessage')) {
      const handles =
        op === 'DeleteMessage' ? [input?.ReceiptHandle] : ((input?.Entries as Json[] | undefined) ?? []).map((e) => e.ReceiptHandle);
      for (const h of handles) {
        const b = this.batchOf.get(String(h));
        if (!b || b.done) continue;
        b.done = true;
        this.invocations.push({ ms: performance.now() - b.t, messages: b.messages });
      }
    }
    const sent = op === 'SendMessage' ? 1 : op === 'SendMessageBatch' ? ((input?.Entries as unknown[] | undefined)?.length ?? 0) : 0;
    if (sent) {
      c.messagesSent += sent;
      bump(
        c.sentTo,
        String(input?.QueueUrl ?? '')
          .split('/')
          .pop() ?? '',
        sent,
      );
    }
    return out;
  }
}
