/**
 * The raw-DynamoDB floor of an endpoint: the same DynamoDB requests the endpoint makes for
 * one operation, sent straight through the document client with no HTTP, middy, zod or
 * handler code around them. Built from a recorded steady-state request (DdbCounter.record):
 *
 * - reads (GetItem, BatchGetItem, Query, Scan, TransactGetItems): replayed as recorded;
 * - the API-key UpdateItem (auth + rate-limit count): replayed on the same key item, with
 *   the current rate window (it is the same hot item the endpoint updates);
 * - every other write is replayed with the SAME SIZE on fresh keys, so it never conflicts
 *   with or changes the endpoint's data: a Put keeps its item (GSI attributes included, so
 *   the index writes are the same) under `pk = FLOOR#<n>#<pk>`, an Update becomes a Put of
 *   the item's image after the probe under a fresh key, a Delete deletes a fresh key, a
 *   ConditionCheck checks the same item with an always-true condition; conditions dropped.
 *   TransactWriteItems stays one transaction of the same number of items; BatchWriteItem
 *   one batch of the same number of requests.
 * - commands that overlapped in time in the recording are sent in parallel (a stage), the
 *   stages one after the other.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { db } from '../../functions/platform/clients';
import type { RecordedCommand } from './counters';

type AnyInput = Record<string, any>;
type Item = Record<string, unknown>;
type Key = { pk: string; sk: string };

export interface FloorPlan {
  /** Commands per stage, e.g. [["UpdateItem"], ["BatchGetItem"], ["TransactWriteItems(7)"], ["Query"]]. */
  stages: string[][];
  requests: number;
  /** Capacity the recorded request consumed (for comparison with the floor's). */
  recordedCapacity: number;
  /** One operation: every stage in order (n makes the fresh keys unique). */
  run(n: number): Promise<void>;
}

const keyId = (k: Key) => `${k.pk}\u0000${k.sk}`;

/** Keys whose image the floor needs (items an Update changed). */
function imageKeys(commands: RecordedCommand[]): Key[] {
  const keys: Key[] = [];
  for (const c of commands) {
    if (c.name === 'UpdateItem' && !String(c.input.Key?.pk).startsWith('APIKEY#')) keys.push(c.input.Key as Key);
    if (c.name === 'TransactWriteItems') for (const t of c.input.TransactItems as AnyInput[]) if (t.Update) keys.push(t.Update.Key as Key);
  }
  return keys;
}

function stagesOf(commands: RecordedCommand[]): RecordedCommand[][] {
  const stages: RecordedCommand[][] = [];
  let stageEnd = -Infinity;
  for (const c of commands.slice().sort((a, b) => a.start - b.start)) {
    if (stages.length && c.start < stageEnd) {
      stages[stages.length - 1]!.push(c);
      stageEnd = Math.max(stageEnd, c.end);
    } else {
      stages.push([c]);
      stageEnd = c.end;
    }
  }
  return stages;
}

const window = () => Math.floor(Date.now() / 1000 / 60) * 60;

export async function buildFloor(commands: RecordedCommand[], tableName: string): Promise<FloorPlan> {
  const images = new Map<string, Item>();
  for (const k of imageKeys(commands)) {
    if (images.has(keyId(k))) continue;
    const out = await db().send(new GetCommand({ TableName: tableName, Key: k, ConsistentRead: true }));
    images.set(keyId(k), out.Item ?? { ...k });
  }
  const fresh = (n: number, i: number, pk: string) => `FLOOR#${n}#${i}#${pk}`;
  const imageOf = (k: Key) => images.get(keyId(k)) ?? { ...k };
  const strip = (x: AnyInput) => {
    const {
      ConditionExpression: _c,
      ExpressionAttributeNames: _n,
      ExpressionAttributeValues: _v,
      ReturnValuesOnConditionCheckFailure: _r,
      ...rest
    } = x;
    return rest;
  };

  const op = (c: RecordedCommand): ((n: number) => Promise<unknown>) => {
    const input = c.input;
    switch (c.name) {
      case 'GetItem':
        return () => db().send(new GetCommand(input as any));
      case 'BatchGetItem':
        return () => db().send(new BatchGetCommand(input as any));
      case 'Query':
        return () => db().send(new QueryCommand(input as any));
      case 'Scan':
        return () => db().send(new ScanCommand(input as any));
      case 'TransactGetItems':
        return () => db().send(new TransactGetCommand(input as any));
      case 'UpdateItem':
        if (String(input.Key?.pk).startsWith('APIKEY#')) {
          return () => {
            const values = { ...input.ExpressionAttributeValues };
            if (':w' in values) values[':w'] = window();
            return db()
              .send(new UpdateCommand({ ...(input as any), ExpressionAttributeValues: values }))
              .catch((e: Error) => {
                if (e.name !== 'ConditionalCheckFailedException') throw e; // window rollover: one request, as the endpoint's
              });
          };
        }
        return (n) => {
          const img = imageOf(input.Key as Key);
          return db().send(
            new PutCommand({
              TableName: input.TableName,
              Item: { ...img, pk: fresh(n, 0, String(img.pk)) },
              ReturnConsumedCapacity: 'INDEXES',
            }),
          );
        };
      case 'PutItem':
        return (n) =>
          db().send(new PutCommand({ ...(strip(input) as any), Item: { ...input.Item, pk: fresh(n, 0, String(input.Item.pk)) } }));
      case 'DeleteItem':
        return (n) =>
          db().send(
            new DeleteCommand({
              TableName: input.TableName,
              Key: { ...input.Key, pk: fresh(n, 0, String(input.Key.pk)) },
              ReturnConsumedCapacity: 'INDEXES',
            }),
          );
      case 'BatchWriteItem':
        return (n) => {
          const RequestItems: Record<string, AnyInput[]> = {};
          let i = 0;
          for (const [t, reqs] of Object.entries(input.RequestItems as Record<string, AnyInput[]>)) {
            RequestItems[t] = reqs.map((r) =>
              r.PutRequest
                ? { PutRequest: { Item: { ...r.PutRequest.Item, pk: fresh(n, i++, String(r.PutRequest.Item.pk)) } } }
                : { DeleteRequest: { Key: { ...r.DeleteRequest.Key, pk: fresh(n, i++, String(r.DeleteRequest.Key.pk)) } } },
            );
          }
          return db().send(new BatchWriteCommand({ RequestItems: RequestItems as any, ReturnConsumedCapacity: 'INDEXES' }));
        };
      case 'TransactWriteItems':
        return (n) => {
          const items = (input.TransactItems as AnyInput[]).map((t, i) => {
            if (t.Put) return { Put: { TableName: t.Put.TableName, Item: { ...t.Put.Item, pk: fresh(n, i, String(t.Put.Item.pk)) } } };
            if (t.Update) {
              const img = imageOf(t.Update.Key as Key);
              return { Put: { TableName: t.Update.TableName, Item: { ...img, pk: fresh(n, i, String(img.pk)) } } };
            }
            if (t.Delete)
              return { Delete: { TableName: t.Delete.TableName, Key: { ...t.Delete.Key, pk: fresh(n, i, String(t.Delete.Key.pk)) } } };
            return {
              ConditionCheck: {
                TableName: t.ConditionCheck.TableName,
                Key: t.ConditionCheck.Key,
                ConditionExpression: 'attribute_exists(pk) OR attribute_not_exists(pk)',
              },
            };
          });
          return db().send(new TransactWriteCommand({ TransactItems: items as any, ReturnConsumedCapacity: 'INDEXES' }));
        };
      default:
        throw new Error(`floor: no replay for ${c.name}`);
    }
  };

  const stages = stagesOf(commands);
  const ops = stages.map((s) => s.map(op));
  const label = (c: RecordedCommand) =>
    c.name === 'TransactWriteItems'
      ? `TransactWriteItems(${(c.input.TransactItems as unknown[]).length})`
      : c.name === 'BatchWriteItem'
        ? `BatchWriteItem(${Object.values(c.input.RequestItems as Record<string, unknown[]>).reduce((a, r) => a + r.length, 0)})`
        : c.name;
  return {
    stages: stages.map((s) => s.map(label)),
    requests: commands.length,
    recordedCapacity: commands.reduce((a, c) => a + c.capacity, 0),
    async run(n: number) {
      for (const stage of ops) await Promise.all(stage.map((f) => f(n)));
    },
  };
}
