/**
 * SQS event sources: receive from each queue and invoke its worker with a real-shaped SQS
 * event, deleting only the messages the worker did not report in batchItemFailures
 * (like Lambda's ReportBatchItemFailures). Failed messages reappear after their
 * visibility timeout (which the worker may have changed), and SQS's redrive moves them
 * to the DLQ after maxReceiveCount, as on AWS.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUES } from '../functions/platform/definitions';
import { invoke } from './lambda';
import { localVisibilitySeconds } from './resources';

function toRecord(m: Message, queueArn: string): SQSRecord {
  const a = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

export interface Poller {
  stop(): Promise<void>;
  /** Resolves when no batch is being processed. */
  busy(): boolean;
  /** Messages received and not yet finished (deleted, or left for SQS to bring back). */
  processing(): number;
}

/** One SQS event source: a queue, its batch size, and the function it invokes. */
export interface EventSource {
  url: string;
  arn: string;
  batchSize: number;
  /** The event source's maximum concurrency, if set. */
  maxConcurrency?: number;
  invoke(event: SQSEvent): Promise<unknown>;
}

/** Source mode: the event sources of QUEUES, invoking the handler modules. */
export function queueDefinitionSources(urls: Record<string, string>, visibilityCapSeconds?: number): EventSource[] {
  return QUEUES.map((q) => {
    const url = urls[`QUEUE_URL_${q.name.toUpperCase().replace(/-/g, '_')}`]!;
    return {
      url,
      arn: `arn:aws:sqs:us-east-1:000000000000:${url.split('/').pop()}`,
      batchSize: q.batchSize,
      maxConcurrency: q.maxConcurrency,
      // The consumer's timeout as deployed (WORKERS): at most the queue's visibility timeout.
      invoke: (event: SQSEvent) => invoke(q.worker, event, Math.min(localVisibilitySeconds(q, visibilityCapSeconds), 60) * 1000),
    };
  });
}

export function startPollers(
  client: SQSClient,
  urls: Record<string, string>,
  concurrency = 4,
  sources: EventSource[] = queueDefinitionSources(urls),
): Poller {
  let running = true;
  let inFlight = 0;
  let messagesInHand = 0;
  // One long poll per queue at a time (an idle stack sends a receive per queue every 20 s, not
  // one per batch slot every second), and, like Lambda's SQS event source, several batches of
  // a queue processed at once: as many as the event source's maxConcurrency (the webhook
  // lanes), else `concurrency`. A received batch goes to a free slot and the next receive
  // starts at once. concurrency 0 (the benches' LOCAL_POLLER_CONCURRENCY=0) consumes nothing.
  const abort = new AbortController();
  const batches = new Set<Promise<void>>();
  const handle = async (q: EventSource, messages: Message[]) => {
    const { url, arn } = q;
    inFlight++;
    messagesInHand += messages.length;
    try {
      const event: SQSEvent = { Records: messages.map((m) => toRecord(m, arn)) };
      let failed = new Set<string>();
      try {
        const result = (await q.invoke(event)) as SQSBatchResponse | undefined;
        failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch {
        failed = new Set(messages.map((m) => m.MessageId!)); // whole batch failed
      }
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length) {
        await client
          .send(
            new DeleteMessageBatchCommand({
              QueueUrl: url,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          )
          .catch(() => undefined);
      }
    } finally {
      inFlight--;
      messagesInHand -= messages.length;
    }
  };
  const loops = sources
    .map((q) => ({ q, slots: concurrency <= 0 ? 0 : Math.max(concurrency, q.maxConcurrency ?? 0) }))
    .filter(({ slots }) => slots > 0)
    .map(async ({ q, slots }) => {
      const mine = new Set<Promise<void>>();
      while (running) {
        // Every slot busy: wait for one to free before receiving more.
        if (mine.size >= slots) await Promise.race(mine);
        let messages: Message[] = [];
        try {
          const out = await client.send(
            new ReceiveMessageCommand({
              QueueUrl: q.url,
              MaxNumberOfMessages: q.batchSize,
              WaitTimeSeconds: 20,
              MessageSystemAttributeNames: ['All'],
            }),
            { abortSignal: abort.signal },
          );
          messages = out.Messages ?? [];
        } catch {
          if (!running) break;
          await new Promise((r) => setTimeout(r, 500));
          continue;
        }
        if (!messages.length) continue;
        const batch = handle(q, messages).finally(() => {
          mine.delete(batch);
          batches.delete(batch);
        });
        mine.add(batch);
        batches.add(batch);
      }
    });
  return {
    busy: () => inFlight > 0,
    processing: () => messagesInHand,
    stop: async () => {
      running = false;
      abort.abort();
      await Promise.allSettled(loops);
      await Promise.allSettled([...batches]);
    },
  };
}
