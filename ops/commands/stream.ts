/**
 * `npm run ops -- stream:replay`: fan out again the batches of event stream records whose
 * retries ran out (DESIGN 9.6; docs/decisions/event-pipeline-streams.md). Lambda (or the local
 * stream poller) describes each such batch in the `event-stream-failures` queue: its shard
 * and first and last sequence numbers. For each message this reads those records from the
 * table's stream (kept 24 h), keeps the ones the mapping's filter passes, and runs the
 * consumer's own fan-out (functions/events/fanout.ts) on them here, with the operator's
 * credentials; the fan-out is idempotent, so records already fanned out make nothing twice.
 * A message is deleted once its batch went through; one that failed again stays.
 *
 * Flags: --failures-url, --table, --queue-url (the webhooks queue) or --stack / --outputs
 * (deployed) or the local stack (`npm start`); --endpoint-url, --region, --limit n, --quiet.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { EVENT_STREAM } from '../../functions/platform/definitions';
import { resetClients } from '../../functions/platform/clients';
import { lambdaRecord, matchesPattern } from '../../local/streams';
import { flags, localStack } from '../common';

type Flags = Record<string, string | true>;
const str = (f: Flags, name: string): string | undefined => (typeof f[name] === 'string' ? (f[name] as string) : undefined);

interface BatchInfo {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  streamArn: string;
}

export interface StreamReplaySummary {
  batches: number;
  records: number;
  failed: number;
}

/** The core stack's outputs (`cdk deploy --outputs-file`), when given. */
function outputsOf(f: Flags): Record<string, string> | undefined {
  const file = str(f, 'outputs');
  if (!file) return undefined;
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  return Object.values(all).find((o) => o.TableName);
}

const seqLe = (a: string, b: string) => BigInt(a) <= BigInt(b);

/** The records of one failed batch, from its first to its last sequence number. */
async function recordsOf(streams: DynamoDBStreamsClient, b: BatchInfo, arn: string): Promise<DynamoDBRecord[]> {
  let iterator = (
    await streams.send(
      new GetShardIteratorCommand({
        StreamArn: b.streamArn,
        ShardId: b.shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: b.startSequenceNumber,
      }),
    )
  ).ShardIterator;
  const out: DynamoDBRecord[] = [];
  while (iterator) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    for (const r of page.Records ?? []) {
      if (!seqLe(r.dynamodb!.SequenceNumber!, b.endSequenceNumber)) return out;
      out.push(lambdaRecord(r, arn));
    }
    if (!page.Records?.length) break; // read to the end of an open shard
    iterator = page.NextShardIterator;
  }
  return out;
}

export async function streamReplay(args: string[]): Promise<StreamReplaySummary> {
  const f = flags(args);
  const outputs = outputsOf(f);
  const local = outputs ? undefined : localStack();
  const failuresUrl = str(f, 'failures-url') ?? outputs?.QueueUrlEventStreamFailures ?? local?.QUEUE_URL_EVENT_STREAM_FAILURES;
  const tableName = str(f, 'table') ?? outputs?.TableName ?? local?.TABLE_NAME;
  const webhooksUrl = str(f, 'queue-url') ?? outputs?.QueueUrlWebhooks ?? local?.QUEUE_URL_WEBHOOKS;
  if (!failuresUrl || !tableName || !webhooksUrl)
    throw new Error(
      'Need the failure queue, the table and the webhooks queue: --failures-url, --table, --queue-url, or --outputs, or npm start.',
    );
  const region = str(f, 'region') ?? local?.AWS_REGION ?? process.env.AWS_REGION ?? 'us-east-1';
  const dynamoEndpoint = str(f, 'endpoint-url') ?? local?.AWS_ENDPOINT_URL_DYNAMODB;
  const sqsEndpoint = str(f, 'sqs-endpoint-url') ?? local?.AWS_ENDPOINT_URL_SQS;
  const credentials = local || dynamoEndpoint ? { accessKeyId: local?.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: 'local' } : undefined;
  // The fan-out runs here: its clients read the same environment as on Lambda.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    QUEUE_URL_WEBHOOKS: webhooksUrl,
    AWS_REGION: region,
    ...(dynamoEndpoint ? { AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint } : {}),
    ...(sqsEndpoint ? { AWS_ENDPOINT_URL_SQS: sqsEndpoint } : {}),
    ...(credentials ? { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey } : {}),
  });
  resetClients();
  const { consumeStream } = await import('../../functions/workers/event-stream');
  const sqs = new SQSClient({
    region,
    ...(sqsEndpoint ? { endpoint: sqsEndpoint } : {}),
    ...(credentials ? { credentials } : {}),
    useQueueUrlAsEndpoint: false,
  });
  const streams = new DynamoDBStreamsClient({
    region,
    ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
    ...(credentials ? { credentials } : {}),
  });
  const limit = Number(str(f, 'limit') ?? Number.MAX_SAFE_INTEGER);
  const summary: StreamReplaySummary = { batches: 0, records: 0, failed: 0 };
  try {
    let empty = 0;
    while (summary.batches + summary.failed < limit && empty < 2) {
      const got = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: failuresUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, VisibilityTimeout: 120 }),
      );
      const m = got.Messages?.[0];
      if (!m) {
        empty++;
        continue;
      }
      empty = 0;
      const info = (JSON.parse(m.Body ?? '{}') as { DDBStreamBatchInfo?: BatchInfo }).DDBStreamBatchInfo;
      if (!info) {
        process.stderr.write(`stream:replay: message ${m.MessageId} describes no stream batch: left in the queue\n`);
        summary.failed++;
        continue;
      }
      const records = (await recordsOf(streams, info, info.streamArn)).filter((r) =>
        EVENT_STREAM.filters.some((f) => matchesPattern(f, r)),
      );
      const out = await consumeStream({ Records: records });
      if (out.batchItemFailures.length) {
        summary.failed++;
        process.stderr.write(
          `stream:replay: ${out.batchItemFailures.length} record(s) of ${info.shardId} failed again: left in the queue\n`,
        );
        continue;
      }
      await sqs.send(new DeleteMessageCommand({ QueueUrl: failuresUrl, ReceiptHandle: m.ReceiptHandle! }));
      summary.batches++;
      summary.records += records.length;
    }
  } finally {
    sqs.destroy();
    streams.destroy();
  }
  if (f.quiet !== true)
    console.log(
      `stream:replay: ${summary.batches} batch(es), ${summary.records} event record(s) fanned out again, ${summary.failed} left in the queue`,
    );
  return summary;
}

export const commands = {
  'stream:replay': async (args: string[]) => {
    await streamReplay(args);
  },
};
