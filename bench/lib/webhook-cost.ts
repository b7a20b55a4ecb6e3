/**
 * What one webhook costs, measured at concurrency 1 on the local stack: an event committed
 * through the outbox (functions/events/outbox.ts) for a merchant with one endpoint on a local
 * receiver that answers 200, then delivered by the webhook worker, invoked here in batches of
 * up to 10 like Lambda's SQS event source (receive, invoke, delete what did not fail).
 * Counts the DynamoDB requests and capacity of the commit and of the delivery, the SQS
 * requests, and the worker's duration per batch (the Lambda duration of the cost model).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { db, queue } from '../../functions/platform/clients';
import { invoke } from '../../local/lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/services';
import { startReceiver } from '../../local/receiver';
import { DdbCounter, SqsCounter, perUnit } from './counters';
import { startBenchStack } from './stack';
import { round, summarize } from './stats';

export async function runWebhookCost(
  events = Number(process.env.BENCH_WEBHOOK_COST_EVENTS ?? (process.env.BENCH_QUICK === '1' ? 50 : 200)),
) {
  const stack = await startBenchStack({ pollers: 0 });
  const rx = await startReceiver({ status: 200 });
  const client = new SQSClient({ endpoint: stack.sqsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const { commit } = await import('../../functions/events/outbox');
    const ddb = new DdbCounter().install(db());
    const sends = new SqsCounter().install(queue());
    const polls = new SqsCounter().install(client);
    const merchant = await stack.participant('merchant');
    const { url } = rx.endpointUrl('merchant');
    await stack.must(201, 'POST', '/v1/webhooks/endpoints', merchant.apiKey, { url });
    const spec = (i: number) => ({
      type: 'billing.response',
      to: merchant.id,
      data: { n: i, reference: `txn_bench_${i}`, amount: 1500.5, currency: 'NGN', status: 'succeeded' },
    });
    await commit([], [spec(-1)]); // warm-up
    ddb.reset();
    sends.reset();

    const commitLat: number[] = [];
    const committed = await ddb.measure(async () => {
      for (let i = 0; i < events; i++) {
        const t0 = performance.now();
        await commit([], [spec(i)]);
        commitLat.push(performance.now() - t0);
      }
    });
    const commitSqs = sends.reset();

    // Deliver: receive up to 10, invoke the worker, delete the successes (Lambda's event source).
    const queueUrl = process.env.QUEUE_URL_WEBHOOKS!;
    const batchMs: number[] = [];
    let delivered = 0;
    let batches = 0;
    ddb.reset();
    polls.reset();
    const deadline = Date.now() + 5 * 60_000;
    const startDeliver = performance.now();
    while (rx.requests.filter((r) => r.status < 300).length < events + 1 && Date.now() < deadline) {
      const out = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const msgs: Message[] = out.Messages ?? [];
      if (!msgs.length) continue;
      const event: SQSEvent = {
        Records: msgs.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body ?? '',
          attributes: {
            ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
            SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
            SenderId: 'local',
            ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
          },
          messageAttributes: {},
          md5OfBody: m.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhooks',
          awsRegion: 'us-east-1',
        })),
      };
      const t0 = performance.now();
      const res = (await invoke('workers/webhook-delivery', event, 60_000)) as
        | { batchItemFailures?: { itemIdentifier: string }[] }
        | undefined;
      batchMs.push(performance.now() - t0);
      batches++;
      const failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      const done = msgs.filter((m) => !failed.has(m.MessageId!));
      delivered += done.length;
      if (done.length)
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
    }
    const deliverMs = performance.now() - startDeliver;
    const deliveredDdb = ddb.reset();
    const pollSqs = polls.reset();
    const okRequests = rx.requests.filter((r) => r.status < 300).length;
    const messages = delivered;
    return {
      events,
      endpointsPerEvent: 1,
      commit: {
        latency: summarize(commitLat),
        dynamodbPerEvent: perUnit(committed.counts, events),
        sqsSendsPerEvent: round(commitSqs.requests / events, 2),
        sqsMessagesPerEvent: round(commitSqs.messagesSent / events, 2),
      },
      delivery: {
        messages,
        receiverRequests2xx: okRequests,
        batches,
        messagesPerBatch: round(messages / Math.max(1, batches), 2),
        workerMsPerBatch: summarize(batchMs),
        workerMsPerMessage: round(batchMs.reduce((a, b) => a + b, 0) / Math.max(1, messages), 2),
        deliveriesPerSecond: round(messages / (deliverMs / 1000), 1),
        dynamodbPerDelivery: perUnit(deliveredDdb, Math.max(1, messages)),
        sqsPerDelivery: {
          ...Object.fromEntries(Object.entries(pollSqs.byCommand).map(([k, v]) => [k, round(v / Math.max(1, messages), 3)])),
        },
      },
    };
  } finally {
    client.destroy();
    await rx.close().catch(() => undefined);
    await stack.stop();
  }
}
