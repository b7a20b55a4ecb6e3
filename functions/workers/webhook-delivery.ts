import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/** Webhook delivery worker: built with the webhooks issue. */
export async function handler(_event: SQSEvent): Promise<SQSBatchResponse> {
  return { batchItemFailures: [] };
}
