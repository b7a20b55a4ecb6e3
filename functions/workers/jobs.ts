import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { extraDueHandler, type DueJob } from '../platform/due';
import { observedWorker } from '../platform/invocation';
import { logger } from '../platform/log';
import { dueKind } from './kinds';

/** SQS consumer of the jobs queue: runs each claimed due item's worker (partial batch failures). */
export const handler = observedWorker(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const job = JSON.parse(record.body) as DueJob;
        const run = dueKind(job.kind) ?? extraDueHandler(job.kind);
        if (!run) {
          logger.error('no worker for due kind', { kind: job.kind });
          batchItemFailures.push({ itemIdentifier: record.messageId });
          return;
        }
        await run(job);
      } catch (error) {
        logger.error('job failed', { messageId: record.messageId, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
});
