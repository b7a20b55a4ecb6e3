/**
 * The event pipeline's stream consumer (DESIGN 9.6; docs/decisions/event-pipeline-streams.md):
 * a Lambda on the table's DynamoDB Stream, given only inserted event items that fan out (the
 * event source's filter, EVENT_STREAM in platform/definitions.ts). For each event:
 *
 * 1. an item that carries further events of its transaction (`more`) writes their own items
 *    (they come back through the stream and are fanned out like this one);
 * 2. the receivers: `to`, and a merchant's provider; their endpoints, read now (enabled and
 *    subscribed to the type, or `*`);
 * 3. one delivery record per (event, endpoint), by a conditional put keyed by both ids, and
 *    one receipt per receiver (the events API's and the delivery lists' entry, holding that
 *    receiver's delivery ids);
 * 4. one message per delivery to the webhooks queue (the whole batch's at once).
 *
 * A replayed record (Lambda retries a batch that failed, or one that ran but whose checkpoint
 * was lost) makes nothing twice: the puts find their records, the receipts add ids to a set,
 * and only a record nothing has happened to yet (its message may never have been sent) gets
 * a message again, which the worker's claim makes harmless if the first one was sent after
 * all. A delivery whose message cannot be sent goes on the due index, where recovery sends it
 * a grace period later; a record whose writes fail is reported, and Lambda retries from it.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { logger } from '../platform/log';
import { unmarshallItem } from '../platform/marshall';
import { realNowIso } from '../platform/table';
import { mapLimit, sleep } from '../platform/retry';
import {
  awaitRecovery,
  createDelivery,
  enqueueDeliveries,
  messageFor,
  newDelivery,
  untouched,
  type DeliveryMessage,
} from '../webhooks/delivery-store';
import { listEndpoints, type EndpointItem } from '../webhooks/endpoint-store';
import { infoOf, maxAttempts, writeCarriedEvent, type StoredEvent } from './outbox';
import { recordReceipt } from './receipt-store';
import { subscribes } from './types';

/** An event item as the stream shows it. */
interface StreamedEvent extends StoredEvent {
  createdAt: string;
  expiresAt: number;
  more?: StoredEvent[];
  endpointId?: string;
  deliveryIds?: unknown;
}

/** Records of one batch worked on at once. */
const CONCURRENCY = 16;
/** Pause before sending again what SQS refused. */
const SEND_RETRY_MS = 200;

/** The event a stream record inserted, when it is one to fan out. */
function eventOf(record: DynamoDBRecord): StreamedEvent | undefined {
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return undefined;
  const item = unmarshallItem(record.dynamodb.NewImage as Record<string, AttributeValue>) as Partial<StreamedEvent> & { pk?: string };
  if (!String(item.pk).startsWith('EVT#') || typeof item.type !== 'string' || typeof item.to !== 'string') return undefined;
  // A webhook.test event is delivered by its own transaction; a release-2 item made its deliveries itself.
  if (item.endpointId !== undefined || item.deliveryIds !== undefined) return undefined;
  return item as StreamedEvent;
}

export async function fanOut(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const failed = new Set<string>();
  const fail = (record: DynamoDBRecord, error: unknown) => {
    logger.error('event fan-out failed (the stream retries it)', {
      sequenceNumber: record.dynamodb?.SequenceNumber,
      error: error as Error,
    });
    failed.add(record.dynamodb?.SequenceNumber ?? '');
  };
  // Endpoints of each receiver, read once per batch (they change: never cached longer).
  const endpointsOf = new Map<string, Promise<EndpointItem[]>>();
  const endpoints = (owner: string) => {
    let p = endpointsOf.get(owner);
    if (!p) endpointsOf.set(owner, (p = listEndpoints(owner)));
    return p;
  };

  const outbox: { record: DynamoDBRecord; message: DeliveryMessage }[] = [];
  await mapLimit(event.Records, CONCURRENCY, async (record) => {
    const ev = eventOf(record);
    if (!ev) return;
    try {
      for (const m of await deliveriesOf(ev, endpoints)) outbox.push({ record, message: m });
    } catch (error) {
      fail(record, error);
    }
  });

  // Every message of the batch at once (what SQS refused, once more); a delivery whose message
  // was still not sent waits for recovery.
  let { failed: unsent } = await enqueueDeliveries(outbox.map((o) => o.message));
  if (unsent.length) {
    await sleep(SEND_RETRY_MS);
    const again = new Set(unsent);
    unsent = (await enqueueDeliveries(outbox.filter((o) => again.has(o.message.deliveryId)).map((o) => o.message))).failed;
  }
  if (unsent.length) {
    const nowMs = Date.now();
    const byId = new Map(outbox.map((o) => [o.message.deliveryId, o.record]));
    await mapLimit(unsent, CONCURRENCY, async (id) => {
      await awaitRecovery(id, nowMs).catch((error) => fail(byId.get(id)!, error));
    });
  }
  return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
}

/** Make one event's carried events, delivery records and receipts; the messages its deliveries are owed. */
async function deliveriesOf(ev: StreamedEvent, endpoints: (owner: string) => Promise<EndpointItem[]>): Promise<DeliveryMessage[]> {
  const head = { createdAt: ev.createdAt, expiresAt: ev.expiresAt };
  await Promise.all((ev.more ?? []).map((extra) => writeCarriedEvent(extra, head)));

  const info = await infoOf(ev.to);
  const receivers = info?.provider ? [ev.to, info.provider] : [ev.to];
  const createdAt = realNowIso();
  const attempts = maxAttempts();
  const messages: DeliveryMessage[] = [];
  await Promise.all(
    receivers.map(async (owner) => {
      const eps = (await endpoints(owner)).filter((ep) => ep.status === 'enabled' && subscribes(ep.events, ev.type));
      const records = eps.map((ep) =>
        newDelivery({ eventId: ev.id, eventType: ev.type, endpointId: ep.id, ownerId: ep.ownerId, createdAt, maxAttempts: attempts }),
      );
      await Promise.all([
        ...records.map(async (d) => {
          const made = await createDelivery(d);
          // Created now, or made by an earlier run whose message may never have left: send it.
          if (made.created || untouched(made.existing)) messages.push(messageFor(d, null));
        }),
        recordReceipt({
          participantId: owner,
          event: { id: ev.id, type: ev.type, createdAt: ev.createdAt },
          deliveryIds: records.map((d) => d.id),
          expiresAt: ev.expiresAt,
        }),
      ]);
    }),
  );
  return messages;
}
