import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
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

/** Query all pages (bounded by maxItems) and return the items. */
export async function queryAll<T extends Item = Item>(
  input: Omit<QueryCommandInput, 'TableName'>,
  maxItems = 10_000,
): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: table(), ExclusiveStartKey: start }));
    for (const it of out.Items ?? []) items.push(it as T);
    start = out.LastEvaluatedKey;
  } while (start && items.length < maxItems);
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
