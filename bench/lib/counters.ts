/**
 * Counting what the service asks of DynamoDB and SQS, with SDK middleware on the shared
 * clients (`db()`, `queue()` of functions/platform/clients.ts): every command by name and by
 * purpose, the SDK attempts, failures, and the capacity DynamoDB reports (the middleware
 * asks every data command for `ReturnConsumedCapacity: 'INDEXES'`). DynamoDB Local's write
 * figures are wrong for transactions (items of identical size counted once, a ConditionCheck
 * as 0, GSI copies doubled): the write units of record are bench/lib/write-units.ts's, counted
 * item by item by bench/lib/proxies.ts (phase lives). Optionally records each command's input
 * and timing (bench/lib/floor.ts replays them as the raw-DynamoDB floor of an endpoint).
 */
import { bump } from './stats';

type AnyInput = Record<string, any>;

export type Purpose = 'auth' | 'idempotency' | 'app';

export interface DdbCounts {
  requests: number;
  /**
   * Authenticated HTTP requests handled: successful auth UpdateItems or GetItems
   * (functions/http/auth.ts reads each request's key item with exactly one successful
   * request: a strongly consistent GetItem, or the conditional UpdateItem that flushes the
   * rate count; the failed ones around a rate-window change are extra requests).
   */
  httpRequests: number;
  byCommand: Record<string, number>;
  /** auth = the API-key/rate-limit item; idempotency = IDEM# records; app = the rest. */
  byPurpose: Record<Purpose, number>;
  attempts: number;
  /** `<command>:<error name>` */
  failed: Record<string, number>;
  capacity: {
    total: number;
    /** Read request units (Get/BatchGet/Query/Scan/TransactGet). */
    read: number;
    /** Write request units (Put/Update/Delete/BatchWrite/TransactWrite). */
    write: number;
    table: number;
    /** Per index name (gsi1..gsi4, due). */
    indexes: Record<string, number>;
    byCommand: Record<string, number>;
    /** Responses that carried ConsumedCapacity. */
    reported: number;
  };
  /** Items sent in TransactWriteItems, by action. */
  transactItems: Record<'Put' | 'Update' | 'Delete' | 'ConditionCheck', number>;
  /** Items written by BatchWriteItem / single writes. */
  itemsWritten: number;
}

export interface RecordedCommand {
  name: string;
  input: AnyInput;
  start: number;
  end: number;
  ok: boolean;
  capacity: number;
}

const DATA_COMMANDS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'TransactGetItems',
]);
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export function emptyDdbCounts(): DdbCounts {
  return {
    requests: 0,
    httpRequests: 0,
    byCommand: {},
    byPurpose: { auth: 0, idempotency: 0, app: 0 },
    attempts: 0,
    failed: {},
    capacity: { total: 0, read: 0, write: 0, table: 0, indexes: {}, byCommand: {}, reported: 0 },
    transactItems: { Put: 0, Update: 0, Delete: 0, ConditionCheck: 0 },
    itemsWritten: 0,
  };
}

const pkOf = (input: AnyInput): unknown => {
  const pk = input.Key?.pk ?? input.Item?.pk;
  return typeof pk === 'object' && pk && 'S' in pk ? (pk as { S: string }).S : pk;
};

export function purposeOf(input: AnyInput): Purpose {
  const pk = pkOf(input);
  if (typeof pk === 'string' && pk.startsWith('APIKEY#')) return 'auth';
  if (typeof pk === 'string' && pk.startsWith('IDEM#')) return 'idempotency';
  return 'app';
}

type Capacity = {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
};

function addCapacity(c: DdbCounts, name: string, consumed: unknown): number {
  if (!consumed) return 0;
  const list = (Array.isArray(consumed) ? consumed : [consumed]) as Capacity[];
  let total = 0;
  for (const x of list) {
    const cu = Number(x.CapacityUnits ?? 0);
    total += cu;
    c.capacity.table += Number(x.Table?.CapacityUnits ?? 0);
    for (const [idx, v] of Object.entries(x.GlobalSecondaryIndexes ?? {})) bump(c.capacity.indexes, idx, Number(v.CapacityUnits ?? 0));
  }
  c.capacity.total += total;
  if (READS.has(name)) c.capacity.read += total;
  else c.capacity.write += total;
  bump(c.capacity.byCommand, name, total);
  c.capacity.reported++;
  return total;
}

interface Stack {
  add(
    mw: (next: (args: any) => Promise<any>, context: { commandName?: string }) => (args: any) => Promise<any>,
    opts: { step: 'initialize'; name: string },
  ): void;
}
interface WithStack {
  middlewareStack: Stack;
}

/** Counts DynamoDB commands of one document client into `current` (swap it per measurement). */
export class DdbCounter {
  current: DdbCounts = emptyDdbCounts();
  /** When set, every command is appended here (input cloned after the middleware's changes). */
  recording: RecordedCommand[] | undefined;
  /** Commands sent and not yet answered. */
  inFlight = 0;
  private installed = new WeakSet<object>();

  install(client: WithStack): this {
    if (this.installed.has(client)) return this;
    this.installed.add(client);
    client.middlewareStack.add(
      (next, context) => async (args: { input: AnyInput }) => {
        const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
        const input = args.input;
        this.inFlight++;
        if (DATA_COMMANDS.has(name) && input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'INDEXES';
        const c = this.current;
        c.requests++;
        bump(c.byCommand, name);
        const purpose = purposeOf(input);
        c.byPurpose[purpose]++;
        if (name === 'TransactWriteItems') {
          for (const t of (input.TransactItems ?? []) as AnyInput[])
            for (const k of Object.keys(t)) if (k in c.transactItems) c.transactItems[k as keyof DdbCounts['transactItems']]++;
        }
        if (name === 'BatchWriteItem')
          for (const reqs of Object.values(input.RequestItems ?? {})) c.itemsWritten += (reqs as unknown[]).length;
        if (name === 'PutItem' || name === 'UpdateItem' || name === 'DeleteItem') c.itemsWritten++;
        const rec = this.recording
          ? { name, input: structuredClone(input), start: performance.now(), end: 0, ok: true, capacity: 0 }
          : undefined;
        try {
          const out = await next(args);
          const o = out.output as { $metadata?: { attempts?: number }; ConsumedCapacity?: unknown };
          c.attempts += o.$metadata?.attempts ?? 1;
          const cu = addCapacity(c, name, o.ConsumedCapacity);
          if (purpose === 'auth' && (name === 'UpdateItem' || name === 'GetItem')) c.httpRequests++;
          if (rec) rec.capacity = cu;
          return out;
        } catch (e) {
          c.attempts += (e as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
          bump(c.failed, `${name}:${(e as Error).name}`);
          if (rec) rec.ok = false;
          throw e;
        } finally {
          this.inFlight--;
          if (rec) {
            rec.end = performance.now();
            this.recording?.push(rec);
          }
        }
      },
      { step: 'initialize', name: 'benchDdbCounter' },
    );
    return this;
  }

  /** Start a fresh count; returns the previous one. */
  reset(): DdbCounts {
    const prev = this.current;
    this.current = emptyDdbCounts();
    return prev;
  }

  /** Count what `fn` does (nothing else may run meanwhile). */
  async measure<T>(fn: () => Promise<T>): Promise<{ value: T; counts: DdbCounts }> {
    this.reset();
    const value = await fn();
    return { value, counts: this.reset() };
  }

  /** Record the commands `fn` sends (sequential use only). */
  async record<T>(fn: () => Promise<T>): Promise<{ value: T; commands: RecordedCommand[]; counts: DdbCounts }> {
    this.recording = [];
    this.reset();
    try {
      const value = await fn();
      return { value, commands: this.recording, counts: this.reset() };
    } finally {
      this.recording = undefined;
    }
  }
}

export interface SqsCounts {
  requests: number;
  byCommand: Record<string, number>;
  /** Messages sent (SendMessage = 1, SendMessageBatch = its entries). */
  messagesSent: number;
}

export const emptySqsCounts = (): SqsCounts => ({ requests: 0, byCommand: {}, messagesSent: 0 });

/** Counts SQS commands of a client (e.g. `queue()`). */
export class SqsCounter {
  current: SqsCounts = emptySqsCounts();
  private installed = new WeakSet<object>();

  install(client: WithStack): this {
    if (this.installed.has(client)) return this;
    this.installed.add(client);
    client.middlewareStack.add(
      (next, context) => async (args: { input: AnyInput }) => {
        const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
        const c = this.current;
        c.requests++;
        bump(c.byCommand, name);
        if (name === 'SendMessage') c.messagesSent++;
        if (name === 'SendMessageBatch') c.messagesSent += (args.input.Entries as unknown[] | undefined)?.length ?? 0;
        return next(args);
      },
      { step: 'initialize', name: 'benchSqsCounter' },
    );
    return this;
  }

  reset(): SqsCounts {
    const prev = this.current;
    this.current = emptySqsCounts();
    return prev;
  }
}

/** Per-unit view of DynamoDB counts (units = HTTP requests, billed phrases, records, ...). */
export function perUnit(c: DdbCounts, units: number, d = 2) {
  const r = (n: number) => (units ? Math.round((n / units) * 10 ** d) / 10 ** d : 0);
  return {
    units,
    requests: r(c.requests),
    byCommand: Object.fromEntries(Object.entries(c.byCommand).map(([k, v]) => [k, r(v)])),
    byPurpose: { auth: r(c.byPurpose.auth), idempotency: r(c.byPurpose.idempotency), app: r(c.byPurpose.app) },
    capacity: {
      total: r(c.capacity.total),
      read: r(c.capacity.read),
      write: r(c.capacity.write),
      table: r(c.capacity.table),
      indexes: Object.fromEntries(Object.entries(c.capacity.indexes).map(([k, v]) => [k, r(v)])),
      byCommand: Object.fromEntries(Object.entries(c.capacity.byCommand).map(([k, v]) => [k, r(v)])),
    },
    transactItems: Object.fromEntries(Object.entries(c.transactItems).map(([k, v]) => [k, r(v)])),
    failed: { ...c.failed },
    retriesBySdk: c.attempts - c.requests,
  };
}
