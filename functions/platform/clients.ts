import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * One client of each kind per process (created on first use). Endpoints and credentials
 * come from the standard AWS environment (AWS_ENDPOINT_URL_DYNAMODB / _SQS locally).
 */
let ddb: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;

/**
 * The local runtime's stream poller (local/streams.ts) wants to know when this process wrote
 * to the table, to read the stream at once instead of polling it often: DynamoDB Local's
 * GetRecords costs more with every stream record the instance holds. Empty on Lambda (no
 * middleware is added then).
 */
export const localWriteListeners = new Set<() => void>();
/**
 * What the local runtime adds to each new DynamoDB client of this process (local/app.ts:
 * re-sending DynamoDB Local's lock timeouts, local/dynamodb/lock-timeout.ts). Empty on Lambda.
 */
export const localDynamoSetup = new Set<(client: DynamoDBClient) => void>();
/** DynamoDB's write operations (the SDK's command names add `Command`; artifacts mode's gateway sees them bare). */
export const DYNAMO_WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'ExecuteStatement',
]);

export function db(): DynamoDBDocumentClient {
  if (!ddb) {
    const client = new DynamoDBClient({ maxAttempts: 4 });
    for (const setup of localDynamoSetup) setup(client);
    if (localWriteListeners.size > 0) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          try {
            return await next(args);
          } finally {
            if (DYNAMO_WRITE_OPERATIONS.has((context.commandName ?? '').replace(/Command$/, ''))) for (const l of localWriteListeners) l();
          }
        },
        { step: 'initialize', name: 'localWriteListeners' },
      );
    }
    ddb = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return ddb;
}

export function queue(): SQSClient {
  // Requests go to the resolved SQS endpoint (the region's, or AWS_ENDPOINT_URL_SQS), not to
  // the host inside each QueueUrl: the same thing on AWS, and no warning per call locally.
  if (!sqs) sqs = new SQSClient({ maxAttempts: 4, useQueueUrlAsEndpoint: false });
  return sqs;
}

/** For tests and benchmarks that instrument or replace clients between runs. */
export function resetClients(): void {
  ddb = undefined;
  sqs = undefined;
}
