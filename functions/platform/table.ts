import { clockNow } from './clock';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { config } from '../config';
import { db } from './clients';
import { backoff, mapLimit } from './retry';

export type Item = Record<string, unknown>;
export type Key = { pk: string; sk: string };
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const table = () => config.tableName();

export async function getItem<T extends Item = Item>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: consistent }));
  return out.Item as T | undefined;
}

export async function putItem(item: Item, condition?: string, names?: Record<string, string>, values?: Item) {
  await db().send(
    new PutCommand({
      TableName: table(),
      Item: item,
      ConditionExpression: condition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

export { UpdateCommand, QueryCommand };

/** Each page of a Query, in order, until the last page or until `onPage` returns false. */
export async function queryPages(input: Omit<QueryCommandInput, 'TableName'>, onPage: (items: Item[]) => boolean | void): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey: start }));
    if (onPage(out.Items ?? []) === false) return;
    start = out.LastEvaluatedKey;
  } while (start);
}

/** One page of a Query from `start`; `next` is the key to continue from (undefined: the last page). */
export async function queryPage(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  start?: Record<string, unknown>,
): Promise<{ items: Item[]; next: Record<string, unknown> | undefined }> {
  const out = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey: start }));
  return { items: out.Items ?? [], next: out.LastEvaluatedKey };
}

/**
 * The table `scanPages` reads: the functions' own (their client and TABLE_NAME), or one an ops
 * tool names by its flags.
 */
export interface TableAt {
  client: () => DynamoDBDocumentClient;
  name: () => string;
}
const OWN_TABLE: TableAt = { client: db, name: table };

/** Each page of a Scan (tests and ops only), in order, until the last page. */
export async function scanPages(
  input: Omit<ScanCommandInput, 'TableName'>,
  onPage: (items: Item[]) => void,
  at: TableAt = OWN_TABLE,
): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await at.client().send(new ScanCommand({ ...input, TableName: at.name(), ExclusiveStartKey: start }));
    onPage(out.Items ?? []);
    start = out.LastEvaluatedKey;
  } while (start);
}

/**
 * Every item the query selects in each partition key of `pks` (`:pk` in its key condition,
 * `pk = :pk` when it has none), `concurrency` Queries at once, each bounded by `maxItems`: a
 * record spread over several partition keys (a merchant's ledger and batch shards, a bank's
 * day counters).
 */
export async function queryPartitions<T extends Item = Item>(
  pks: readonly string[],
  input: Omit<QueryCommandInput, 'TableName' | 'KeyConditionExpression'> & { KeyConditionExpression?: string },
  opts: { maxItems?: number; concurrency?: number } = {},
): Promise<T[]> {
  const parts = await mapLimit(pks, opts.concurrency ?? 8, (pk) =>
    queryAll<T>(
      {
        ...input,
        KeyConditionExpression: input.KeyConditionExpression ?? 'pk = :pk',
        ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':pk': pk },
      },
      opts.maxItems,
    ),
  );
  return parts.flat();
}

/** Query all pages (bounded by maxItems) and return the items. */
export async function queryAll<T extends Item = Item>(input: Omit<QueryCommandInput, 'TableName'>, maxItems = 10_000): Promise<T[]> {
  const items: T[] = [];
  await queryPages(input, (page) => {
    for (const it of page) items.push(it as T);
    return items.length < maxItems;
  });
  return items.slice(0, maxItems);
}

/** Write items atomically (one DynamoDB transaction, at most 100 items). */
export async function transact(items: TransactItem[]): Promise<void> {
  if (items.length === 0) return;
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}

export const isConditionFailure = (e: unknown): e is ConditionalCheckFailedException =>
  e instanceof ConditionalCheckFailedException || (e as { name?: string })?.name === 'ConditionalCheckFailedException';

export const isTransactionCancelled = (e: unknown): e is TransactionCanceledException =>
  e instanceof TransactionCanceledException || (e as { name?: string })?.name === 'TransactionCanceledException';

/** Reasons of a cancelled transaction, by item index ('ConditionalCheckFailed', 'None', ...). */
export function cancellationCodes(e: unknown): string[] {
  if (!isTransactionCancelled(e)) return [];
  return (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/**
 * Items a caller rides on a domain transaction (the Idempotency-Key's record of a money route,
 * written in the same transaction as the change it answers: DESIGN 10.2). `items` is made
 * from the outcome the transaction writes; `committed` is told when they committed with it.
 */
export interface Rider<T> {
  items(next: T): Promise<TransactItem[]>;
  committed(): void;
}

/** A rider's own condition failed (its record exists already): nothing of the transaction was written. */
export class RiderRefused extends Error {
  constructor() {
    super('rider refused');
    this.name = 'RiderRefused';
  }
}

/** The rider's items in `own` (at `at`, `count` of them) and the cancelled transaction `e`: throws RiderRefused when one of them failed its condition. */
export function checkRider(e: unknown, at: number, count: number): void {
  if (
    count > 0 &&
    cancellationCodes(e)
      .slice(at, at + count)
      .includes('ConditionalCheckFailed')
  )
    throw new RiderRefused();
}

/** Now as ISO text: the test clock's time in its context (platform/clock.ts), else the real time. */
export const nowIso = (ms = clockNow().getTime()) => new Date(ms).toISOString();
/** The real time, also inside a test clock's context (webhook delivery timing, TTLs). */
export const realNowIso = () => new Date().toISOString();

const BATCH_GET_MAX = 100;
/** BatchGetItem requests of one call in flight at once (the SDK's connection pool holds 50). */
const BATCH_GET_PARALLEL = 4;

/** Strongly consistent BatchGetItem of any number of keys; result by `pk`. */
export async function batchGet<T extends Item>(keys: readonly Key[], projection?: string[]): Promise<Map<string, T>> {
  const byKey = await batchGetByKey<T>(keys, projection);
  return new Map([...byKey.values()].map((it) => [it.pk as string, it]));
}

/** The map key of `batchGetByKey`'s result. */
export const itemKeyOf = (k: Key) => `${k.pk}\u0000${k.sk}`;

/** As `batchGet`, for keys that share a partition: result by `itemKeyOf(key)`. */
export async function batchGetByKey<T extends Item>(keys: readonly Key[], projection?: string[]): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const unique = [...new Map(keys.map((k) => [`${k.pk}\u0000${k.sk}`, k])).values()];
  // The key attributes are always projected: results are matched by `pk`.
  const names = projection ? Object.fromEntries([...new Set(['pk', 'sk', ...projection])].map((p, i) => [`#p${i}`, p])) : undefined;
  const chunks = Array.from({ length: Math.ceil(unique.length / BATCH_GET_MAX) }, (_, i) =>
    unique.slice(i * BATCH_GET_MAX, (i + 1) * BATCH_GET_MAX),
  );
  // A page of 1,000 keys is ten requests: BATCH_GET_PARALLEL at a time, not one after another.
  await mapLimit(chunks, BATCH_GET_PARALLEL, async (chunk) => {
    let pending: Record<string, unknown>[] | undefined = chunk.map((k) => ({ pk: k.pk, sk: k.sk }));
    for (let round = 0; pending && pending.length > 0; round++) {
      if (round > 0) await backoff(round + 1, { base: 20, cap: 500 });
      if (round > 10) throw new Error('BatchGetItem did not finish');
      const res = await db().send(
        new BatchGetCommand({
          RequestItems: {
            [table()]: {
              Keys: pending,
              ConsistentRead: true,
              ...(names ? { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names } : {}),
            },
          },
        }),
      );
      for (const it of res.Responses?.[table()] ?? []) out.set(itemKeyOf(it as Key), it as T);
      pending = res.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
    }
  });
  return out;
}

const BATCH_WRITE_MAX = 25;

/** BatchWriteItem Puts of any number of items (unconditional), retrying what DynamoDB leaves unprocessed. */
export async function batchPut(items: readonly Item[]): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH_WRITE_MAX) {
    let pending: { PutRequest: { Item: Item } }[] | undefined = items
      .slice(i, i + BATCH_WRITE_MAX)
      .map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; pending && pending.length > 0; round++) {
      if (round > 0) await backoff(round + 1, { base: 20, cap: 500 });
      if (round > 10) throw new Error('BatchWriteItem did not finish');
      const res = await db().send(new BatchWriteCommand({ RequestItems: { [table()]: pending } }));
      pending = res.UnprocessedItems?.[table()] as typeof pending;
    }
  }
}
