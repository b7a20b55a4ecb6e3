/** Creates the table and queues locally from the same definitions the CDK stack uses. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type StreamSpecification,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { EVENT_STREAM, QUEUES, TABLE, dlqName } from '../functions/platform/definitions';

const STREAM: StreamSpecification = { StreamEnabled: true, StreamViewType: TABLE.stream };

/**
 * The table's stream as the definitions say, on a table that exists (a table kept in .local/
 * from before the event stream gets it now; records written before that are not in it).
 */
export async function ensureStream(client: DynamoDBClient, tableName: string, spec: StreamSpecification = STREAM): Promise<void> {
  const t = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const now = t.Table?.StreamSpecification;
  if (now?.StreamEnabled && now.StreamViewType === spec.StreamViewType) return;
  if (now?.StreamEnabled)
    await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: false } }));
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: spec }));
}

/**
 * Creates the table as the definitions say, or gives an existing one its stream. `stream: false`
 * (LOCAL_TABLE_STREAM=0) leaves the stream out: a local stack whose test reads no event (the
 * 100,000-row export) does not pay DynamoDB Local's stream record on every write; nothing then
 * consumes a stream (app.ts starts no stream poller).
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, opts: { stream?: boolean } = {}): Promise<void> {
  const stream = opts.stream ?? true;
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (stream) await ensureStream(client, tableName);
    return;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException) && (e as Error).name !== 'ResourceNotFoundException') throw e;
  }
  const attrs = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const i of TABLE.indexes) {
    attrs.add(i.partitionKey);
    attrs.add(i.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE.indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: i.projection },
      })),
      ...(stream ? { StreamSpecification: STREAM } : {}),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    }),
  );
}

/**
 * A queue's visibility timeout on the local stack: the definition's, or `capSeconds` when
 * that is shorter (LOCAL_VISIBILITY_TIMEOUT_SECONDS: a test that waits for a message left in
 * flight, by a killed worker or a refused read, to come back sets it instead of waiting the
 * deployed 60 s in real time). The local consumer's timeout follows it (pollers.ts), as
 * Lambda's must not exceed its queue's.
 */
export function localVisibilitySeconds(q: { visibilityTimeoutSeconds: number }, capSeconds?: number): number {
  return capSeconds && capSeconds > 0 ? Math.min(q.visibilityTimeoutSeconds, capSeconds) : q.visibilityTimeoutSeconds;
}

/** Whether the local stack's table has its stream (LOCAL_TABLE_STREAM=0: without; see ensureTable). */
export const tableStreamWanted = (env: Record<string, string | undefined>): boolean => env.LOCAL_TABLE_STREAM !== '0';

/** The local stack's visibility cap from its environment (unset: the definitions' timeouts). */
export const visibilityCap = (env: Record<string, string | undefined>): number | undefined =>
  env.LOCAL_VISIBILITY_TIMEOUT_SECONDS ? Number(env.LOCAL_VISIBILITY_TIMEOUT_SECONDS) : undefined;

/** Queue URLs by env name (QUEUE_URL_WEBHOOKS, QUEUE_URL_WEBHOOKS_DLQ, ...). */
export async function ensureQueues(client: SQSClient, prefix: string, capSeconds?: number): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const envName = (n: string) => `QUEUE_URL_${n.toUpperCase().replace(/-/g, '_')}`;
  for (const q of QUEUES) {
    const dlq = await client.send(
      new CreateQueueCommand({ QueueName: `${prefix}${dlqName(q)}`, Attributes: { MessageRetentionPeriod: '1209600' } }),
    );
    const dlqArn = (await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
      .QueueArn!;
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: `${prefix}${q.name}`,
        Attributes: {
          VisibilityTimeout: String(localVisibilitySeconds(q, capSeconds)),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
        },
      }),
    );
    env[envName(q.name)] = main.QueueUrl!;
    env[envName(dlqName(q))] = dlq.QueueUrl!;
  }
  // Where the stream poller describes a batch of the event stream whose retries ran out.
  const failures = await client.send(
    new CreateQueueCommand({ QueueName: `${prefix}${EVENT_STREAM.onFailure}`, Attributes: { MessageRetentionPeriod: '1209600' } }),
  );
  env[envName(EVENT_STREAM.onFailure)] = failures.QueueUrl!;
  return env;
}

/** The exports bucket of a local app, named after its queue prefix (S3 bucket name rules). */
export const localBucketName = (prefix: string) =>
  `${prefix}exports`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63)
    .replace(/^-|-$/g, '');

/** Creates the exports bucket on the emulator's S3 (fauxqs serves S3 on the SQS endpoint), once. */
export async function ensureBucket(
  endpoint: string,
  region: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  bucket: string,
): Promise<void> {
  const { S3Client, CreateBucketCommand, HeadBucketCommand } = await import('@aws-sdk/client-s3');
  const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
}
