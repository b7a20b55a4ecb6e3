import {
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { config } from '../config';
import { db } from './clients';

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

/** Each page of a Scan (tests and ops only), in order, until the last page. */
export async function scanPages(input: Omit<ScanCommandInput, 'TableName'>, onPage: (items: Item[]) => void): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ ...input, TableName: table(), ExclusiveStartKey: start }));
    onPage(out.Items ?? []);
    start = out.LastEvaluatedKey;
  } while (start);
}

/** Query all pages (bounded by maxItems) and return the items. */
export async function queryAll<T extends Item = Item>(
  input: Omit<QueryCommandInput, 'TableName'>,
  maxItems = 10_000,
): Promise<T[]> {
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

export const nowIso = (ms = Date.now()) => new Date(ms).toISOString();
