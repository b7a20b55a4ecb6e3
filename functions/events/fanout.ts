/**
 * The event pipeline's stream consumer (DESIGN 9.6; docs/decisions/event-pipeline-streams.md):
 * a Lambda on the table's DynamoDB Stream, given only inserted event items that fan out (the
 * event source's filter, EVENT_STREAM in platform/definitions.ts). For each event:
 *
 * 0. an event carried on the item that caused it (outbox `carry`: a billing's `billing.request`
 *    and `billing.response`, whose transactions write no event item) is derived from that
 *    item's record (`EventDerivers`, passed by the entry point) and its event item written
 *    here, outside any transaction, before anything can show it;
 * 1. an item that carries further events of its transaction (`more`) writes their own items
 *    (they come back through the stream and are fanned out like this one);
 * 2. the receivers: `to`, and a merchant's provider; their endpoints, read now (enabled and
 *    subscribed to the type, or `*`);
 * 3. one receipt per receiver (the events API's and the delivery lists' entry), naming that
 *    receiver's deliveries of the event: one per (event, endpoint), its id made from both;
 * 4. one first message per delivery to the webhooks queue (the whole batch's at once),
 *    carrying what the delivery's record starts with: the worker's first claim makes the
 *    record (webhooks/delivery-transition-store.ts `claimAttempt`), so the consumer writes
 *    no record. Until that claim the receipt shows the delivery, pending (events/views.ts).
 *
 * A replayed record (Lambda retries a batch that failed, or one that ran but whose checkpoint
 * was lost) makes nothing twice: the receipts add ids to a set and keep the time the
 * deliveries were first made, and the messages sent again are copies that the worker's claim
 * drops (a delivery is claimed once per attempt, record or not). A delivery whose message
 * cannot be sent gets its record on the due index, where recovery sends it a grace period
 * later; a record whose writes fail is reported, and Lambda retries from it.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { logger } from '../platform/log';
import { unmarshallItem } from '../platform/marshall';
import { realNowIso } from '../platform/table';
import { mapLimit, sleep } from '../platform/retry';
import {
  awaitRecovery,
  deliveryIdFor,
  enqueueDeliveries,
  firstMessage,
  maxAttempts,
  newDelivery,
  type DeliveryItem,
  type DeliveryMessage,
} from '../webhooks/delivery-store';
import { listEndpoints, type EndpointItem } from '../webhooks/endpoint-store';
import { CARRIED_EVENT, infoOf, writeEventItemOnce, type CarriedEvent, type EventDerivers, type StoredEvent } from './outbox';
import { recordReceipt } from './receipt-store';
import { subscribes } from './types';

/** An event item as the stream shows it. */
interface StreamedEvent extends StoredEvent {
  createdAt: string;
  expiresAt: number;
  more?: StoredEvent[];
  endpointId?: string;
  deliveryIds?: unknown;
  /** A carried event: the key (pk) of the item that carries it; its event item is written here. */
  carriedBy?: string;
}

/** Records of one batch worked on at once. */
const CONCURRENCY = 16;
/** Pause before sending again what SQS refused. */
const SEND_RETRY_MS = 200;

/** The event a stream record inserted or carries, when it is one to fan out. */
function eventOf(record: DynamoDBRecord, derivers: EventDerivers): StreamedEvent | undefined {
  if (!record.dynamodb?.NewImage) return undefined;
  const item = unmarshallItem(record.dynamodb.NewImage as Record<string, AttributeValue>) as Partial<StreamedEvent> & {
    pk?: string;
    [CARRIED_EVENT]?: CarriedEvent;
  };
  const carried = item[CARRIED_EVENT];
  if (carried !== undefined) return carriedEventOf(String(item.pk), item, carried, derivers);
  if (record.eventName !== 'INSERT') return undefined;
  if (!String(item.pk).startsWith('EVT#') || typeof item.type !== 'string' || typeof item.to !== 'string') return undefined;
  // A webhook.test event is delivered by its own transaction; a release-2 item made its deliveries itself;
  // a carried event's item is fanned out from the record of the item that carries it.
  if (item.endpointId !== undefined || item.deliveryIds !== undefined || item.carriedBy !== undefined) return undefined;
  return item as StreamedEvent;
}

/**
 * The event an item carries (outbox `carry`), derived from the item as this record shows it.
 * Every write of the item after the one that emitted it removes the marker or replaces it
 * with its own event, so a record that shows one is that write's (or a replay of it); one
 * whose retention is over is never made again; one that no deriver makes fails its record.
 */
function carriedEventOf(pk: string, item: Record<string, unknown>, c: CarriedEvent, derivers: EventDerivers): StreamedEvent | undefined {
  if (c.exp * 1000 <= Date.now()) return undefined;
  const derived = derivers[c.type]?.(item, c.args);
  // Never dropped: the record fails, Lambda retries it, then describes it to the failure queue (alarmed; ops stream:replay).
  if (!derived) throw new Error(`carried event ${c.id} (${c.type}) on ${pk}: no deriver makes it from this item`);
  return {
    id: c.id,
    type: c.type,
    to: derived.to,
    data: c.tc ? { ...derived.data, testClock: c.tc } : derived.data,
    createdAt: c.at,
    expiresAt: c.exp,
    carriedBy: pk,
  };
}

export async function fanOut(event: DynamoDBStreamEvent, derivers: EventDerivers): Promise<DynamoDBBatchResponse> {
  const failed = new Set<string>();
  const fail = (record: DynamoDBRecord, error: unknown) => {
    logger.error('event fan-out failed (the stream retries it)', {
      sequenceNumber: record.dynamodb?.SequenceNumber,
      error: error as Error,
    });
    failed.add(record.dynamodb?.SequenceNumber ?? '');
  };
  // Endpoints of each receiver, read once per batch (they change: never cached longer), eventually
  // consistent: an endpoint made or changed within about a second may not be read yet
  // (docs/decisions/webhook-delivery.md "Endpoint reads").
  const endpointsOf = new Map<string, Promise<EndpointItem[]>>();
  const endpoints = (owner: string) => {
    let p = endpointsOf.get(owner);
    if (!p) endpointsOf.set(owner, (p = listEndpoints(owner, false)));
    return p;
  };

  const outbox: { record: DynamoDBRecord; delivery: DeliveryItem; message: DeliveryMessage }[] = [];
  await mapLimit(event.Records, CONCURRENCY, async (record) => {
    try {
      // (A carried event that cannot be derived fails its record, not the batch.)
      const ev = eventOf(record, derivers);
      if (!ev) return;
      for (const d of await deliveriesOf(ev, endpoints)) outbox.push({ record, delivery: d, message: firstMessage(d) });
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
    const byId = new Map(outbox.map((o) => [o.message.deliveryId, o]));
    await mapLimit(unsent, CONCURRENCY, async (id) => {
      const o = byId.get(id)!;
      await awaitRecovery(o.delivery, nowMs).catch((error) => fail(o.record, error));
    });
  }
  return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
}

/**
 * Make one event's carried events and receipts; its deliveries, as their first claims will
 * make their records (each first message carries what its record starts with).
 */
async function deliveriesOf(ev: StreamedEvent, endpoints: (owner: string) => Promise<EndpointItem[]>): Promise<DeliveryItem[]> {
  const head = { createdAt: ev.createdAt, expiresAt: ev.expiresAt };
  if (ev.carriedBy !== undefined) {
    const { id, type, to, data, carriedBy } = ev;
    await writeEventItemOnce({ id, type, to, data, carriedBy }, head);
  }
  await Promise.all((ev.more ?? []).map((extra) => writeEventItemOnce(extra, head)));

  const info = await infoOf(ev.to);
  const receivers = info?.provider ? [ev.to, info.provider] : [ev.to];
  const attempts = maxAttempts();
  const owed: DeliveryItem[] = [];
  await Promise.all(
    receivers.map(async (owner) => {
      const eps = (await endpoints(owner)).filter((ep) => ep.status === 'enabled' && subscribes(ep.events, ev.type));
      const ids = eps.map((ep) => deliveryIdFor(ev.id, ep.id));
      // The receipt first: it shows the deliveries until their records exist. A replayed
      // stream record finds the time they were first made.
      const now = realNowIso();
      const madeAt =
        (await recordReceipt({
          participantId: owner,
          event: { id: ev.id, type: ev.type, createdAt: ev.createdAt },
          deliveryIds: ids,
          expiresAt: ev.expiresAt,
          madeAt: now,
        })) ?? now;
      for (const ep of eps)
        owed.push(
          newDelivery({
            eventId: ev.id,
            eventType: ev.type,
            endpointId: ep.id,
            ownerId: ep.ownerId,
            createdAt: madeAt,
            maxAttempts: attempts,
          }),
        );
    }),
  );
  return owed;
}
