/**
 * Transactional outbox (DESIGN 2, 9.6). Every feature records its state change and the
 * events it causes through `commit`, in ONE DynamoDB transaction:
 *
 *   caller's items + at most one compact event item
 *
 * or no event item at all when the one event rides on one of the caller's items (`carry`: a
 * billing's `billing.request` and `billing.response`, whose data is the billing's own fields;
 * the stream consumer derives the event from that item's record and writes its item).
 *
 * The event item holds what a delivery needs to build its payload (type, `to`, `data` with
 * the test clock, `createdAt`) and nothing else: no signed body (built at delivery time,
 * webhooks/event-body.ts), no delivery record, no index copy. A transaction that emits
 * several events writes the first one's item with the others inside (`more`); the stream
 * consumer writes their own items. From the table's change stream, the consumer
 * (events/fanout.ts) makes each event's delivery records, one per subscribed endpoint of
 * its receivers (`to`, and a merchant's provider), the receipts the events API reads, and
 * enqueues the deliveries: so `commit` reads nothing and sends nothing, and a bill's request
 * path pays one TransactWriteItems for its events.
 *
 * A `webhook.test` event names its one endpoint (`endpointId`): the test call answers with
 * its delivery id, so its transaction writes the delivery record and the receipts itself,
 * enqueues it after the commit (recovery sends it if that fails: the record is on the due
 * index), and the stream consumer leaves its item alone.
 *
 * The caller's items come first, so `cancellationCodes(e)[i]` still indexes the caller's
 * i-th item when the transaction is cancelled.
 *
 * Sandbox only: an event a simulated bank must answer also puts its event item on the due
 * index (kind `sandbox.bank`): the caller passes `sandboxBankDue` (events/sandbox-bank.ts) as the
 * `eventDue` hook; the outbox imports nothing of the sandbox.
 */
import { newId } from '../domain/ids';
import { getParticipant } from '../identity/participant-store';
import { isConditionFailure, nowIso, realNowIso, table, transact, type TransactItem } from '../platform/table';
import { db } from '../platform/clients';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { currentTestClock } from '../platform/clock';
import { eventKey, maxAttempts, messageFor, newDelivery, overdueAt, recoveryDue, type DeliveryMessage } from '../webhooks/delivery-store';
import { getEndpoint } from '../webhooks/endpoint-store';
import { CARRIED_EVENT } from '../platform/definitions';
import { logger } from '../platform/log';
import { isEventType } from './types';
import { EVENT_RETENTION_SECONDS } from './receipts';
import { receiptTransactItem } from './receipt-store';

export interface EventSpec {
  /** `<resource>.<change>`, e.g. `billing.intent`, `merchant.trust.updated` (see events/types.ts). */
  type: string;
  /** The participant the event is for (bank or merchant; a merchant's provider also receives it). */
  to: string;
  data: Record<string, unknown>;
  /**
   * Deliver to this one endpoint of `to` only, whatever its subscriptions or status, and to
   * nobody else (the `webhook.test` event). Rarely wanted elsewhere.
   */
  endpointId?: string;
}

export interface CommittedEvent {
  id: string;
  type: string;
  to: string;
  createdAt: string;
  /**
   * The delivery records this transaction wrote: a `webhook.test` event's one. Every other
   * event's deliveries are made from the stream after the commit (events/fanout.ts).
   */
  deliveryIds: string[];
}

/**
 * Due attributes for an event item (spread into it; `{}` for none), given what the outbox
 * knows of the receiver. The sandbox's simulated banks use it (events/sandbox-bank.ts).
 */
export type EventDueHook = (
  receiver: { simulated?: unknown } | undefined,
  type: string,
  eventId: string,
  createdMs: number,
) => { duePk?: string; dueSk?: string };

export interface CommitOptions {
  eventDue?: EventDueHook;
  /**
   * Sends a `webhook.test` event's delivery after the commit (the caller passes
   * `enqueueDeliveries`, webhooks/delivery-store.ts): the outbox itself sends nothing, so the
   * business functions bundle no SQS client. Without it, recovery sends it a grace period later.
   */
  enqueue?: (messages: DeliveryMessage[]) => Promise<unknown>;
  /**
   * The index of the caller's item that keeps the ids of the events this transaction emits
   * (its `eventIds` list, appended in the same write: no extra request, no index), so the
   * object's page finds its events by key (a transaction, a refund, a dispute: DESIGN 9.7).
   * The item must be a Put or an Update.
   */
  recordOn?: number;
  /**
   * Carry the one event on the caller's item at this index instead of an event item of its
   * own (DESIGN 9.6: every item of a transaction costs twice its write units). The item gets
   * a compact marker (`emits`: id, type, time, retention, `args`); the stream consumer sees
   * the item's stream record, derives the event's receiver and data from the item as written
   * (`EventDerivers`, one per type, passed by the consumer's entry point), writes the event
   * item outside any transaction and fans it out (events/fanout.ts). `data` must be what the
   * deriver makes of the item after this transaction (tested per type). Ignored (an event
   * item as usual) when the transaction emits more than one event or the event is due
   * (`eventDue`: a simulated bank answers from its item).
   */
  carry?: { on: number; args?: Record<string, unknown> };
}

export { CARRIED_EVENT };

/** An event carried on the item that caused it, as the item keeps it (`CARRIED_EVENT`). */
export interface CarriedEvent {
  id: string;
  type: string;
  /** The event's `createdAt`. */
  at: string;
  /** The event's `expiresAt` (epoch seconds). */
  exp: number;
  /** What the deriver needs that the item does not hold. */
  args?: Record<string, unknown>;
  /** Sandbox: the test clock the event was made on. */
  tc?: string;
}

/**
 * Builds a carried event's receiver and data from the carrying item as written (the stream's
 * new image), given the marker's `args`; undefined when the item cannot emit that type.
 */
export type EventDeriver = (
  item: Record<string, unknown>,
  args: Record<string, unknown> | undefined,
) => { to: string; data: Record<string, unknown> } | undefined;
export type EventDerivers = Readonly<Record<string, EventDeriver>>;

/** An event as its item stores it (the first event's item carries the others in `more`, with their due attributes). */
export interface StoredEvent {
  id: string;
  type: string;
  to: string;
  data: Record<string, unknown>;
  duePk?: string;
  dueSk?: string;
}

/** DynamoDB's limit of items per TransactWriteItems. */
export const TRANSACTION_LIMIT = 100;

export class OutboxTooLargeError extends Error {
  constructor(
    readonly total: number,
    readonly callerItems: number,
    readonly eventItems: number,
    readonly deliveryItems: number,
  ) {
    super(
      `Outbox transaction needs ${total} items (${callerItems} state + ${eventItems} events + ${deliveryItems} deliveries); DynamoDB allows ${TRANSACTION_LIMIT}. Split the change into several commits.`,
    );
    this.name = 'OutboxTooLargeError';
  }
}

/**
 * participant id -> its provider id (null: none) and whether it is a simulated bank (sandbox).
 * Neither ever changes after creation, so this lives for the process.
 */
const receiverInfo = new Map<string, { provider: string | null; simulated: boolean }>();

/** What the outbox and the stream consumer need to know of a receiver (read once per process). */
export async function infoOf(to: string): Promise<{ provider: string | null; simulated: boolean } | undefined> {
  let info = receiverInfo.get(to);
  if (info === undefined) {
    const p = await getParticipant(to);
    if (!p) return undefined; // not cached: it may be created later
    info = { provider: p.type === 'merchant' && p.providerId ? p.providerId : null, simulated: p.type === 'bank' && p.simulated === true };
    receiverInfo.set(to, info);
  }
  return info;
}

/** Commit the items and the events atomically; a `webhook.test` event's delivery is enqueued after (`options.enqueue`). */
export async function commit(items: TransactItem[], events: EventSpec[], options: CommitOptions = {}): Promise<CommittedEvent[]> {
  // The event's time is the clock's (a test clock's in its context, DESIGN 8.7); deliveries
  // and the retention TTL always run on real time.
  const createdAt = nowIso();
  const createdMs = Date.parse(createdAt);
  const sentAt = realNowIso();
  const sentMs = Date.parse(sentAt);
  const testClock = currentTestClock();
  const expiresAt = Math.floor(sentMs / 1000) + EVENT_RETENTION_SECONDS;

  for (const e of events) {
    // Endpoints can subscribe only to listed types (events/types.ts); `*` still receives this one.
    if (!isEventType(e.type)) logger.warn('event type not in events/types.ts', { type: e.type });
  }
  const stored = events.map((e) => ({
    spec: e,
    event: { id: newId('evt'), type: e.type, to: e.to, data: testClock ? { ...e.data, testClock } : e.data } as StoredEvent,
  }));
  const at = options.recordOn;
  const own: TransactItem[] =
    at === undefined || stored.length === 0
      ? [...items]
      : items.map((item, i) =>
          i === at
            ? recordEventIds(
                item,
                stored.map((s) => s.event.id),
              )
            : item,
        );
  const committed: CommittedEvent[] = stored.map(({ event }) => ({ ...event, createdAt, deliveryIds: [] }));
  // The sandbox hook needs to know whether the receiver is a simulated bank (read once per process).
  const dueOf = async (ev: StoredEvent) => (options.eventDue ? options.eventDue(await infoOf(ev.to), ev.type, ev.id, createdMs) : {});

  const eventItems: TransactItem[] = [];
  const fanned: StoredEvent[] = [];
  for (const s of stored) if (!s.spec.endpointId) fanned.push({ ...s.event, ...(await dueOf(s.event)) });
  const carry = options.carry;
  if (carry && stored.length === 1 && fanned.length === 1 && fanned[0]!.duePk === undefined) {
    const ev = fanned[0]!;
    const marker: CarriedEvent = {
      id: ev.id,
      type: ev.type,
      at: createdAt,
      exp: expiresAt,
      ...(carry.args ? { args: carry.args } : {}),
      ...(testClock ? { tc: testClock } : {}),
    };
    own[carry.on] = withAttribute(own[carry.on]!, CARRIED_EVENT, marker);
  } else if (fanned.length > 0) {
    const [first, ...more] = fanned;
    eventItems.push(eventPut({ ...first!, createdAt, expiresAt, ...(more.length ? { more } : {}) }));
  }

  // A webhook.test event: its item, its one delivery and its receipts, in this transaction.
  const direct: { deliveryId: string; message: ReturnType<typeof messageFor> }[] = [];
  let deliveryItems = 0;
  for (const [i, s] of stored.entries()) {
    const endpointId = s.spec.endpointId;
    if (!endpointId) continue;
    const ev = s.event;
    const ep = await getEndpoint(ev.to, endpointId);
    const info = await infoOf(ev.to);
    eventItems.push(eventPut({ ...ev, endpointId, createdAt, expiresAt, ...(await dueOf(ev)) }));
    const head = { id: ev.id, type: ev.type, createdAt };
    const deliveryIds: string[] = [];
    if (ep) {
      const d = newDelivery({
        eventId: ev.id,
        eventType: ev.type,
        endpointId,
        ownerId: ep.ownerId,
        createdAt: sentAt,
        maxAttempts: maxAttempts(),
        manual: true,
      });
      Object.assign(d, recoveryDue(d.id, sentMs)); // overdue a grace period from now, unless its message comes
      eventItems.push({ Put: { TableName: table(), Item: d, ConditionExpression: 'attribute_not_exists(pk)' } });
      deliveryItems++;
      deliveryIds.push(d.id);
      direct.push({ deliveryId: d.id, message: messageFor(d, overdueAt(sentMs)) });
    }
    committed[i]!.deliveryIds = deliveryIds;
    eventItems.push(receiptTransactItem({ participantId: ev.to, event: head, deliveryIds, expiresAt }));
    if (info?.provider) eventItems.push(receiptTransactItem({ participantId: info.provider, event: head, deliveryIds: [], expiresAt }));
  }

  const total = own.length + eventItems.length;
  if (total > TRANSACTION_LIMIT) throw new OutboxTooLargeError(total, own.length, eventItems.length - deliveryItems, deliveryItems);

  await transact([...own, ...eventItems]);
  // If this fails, the test delivery is on the due index: recovery sends it a grace period later.
  if (direct.length > 0) await options.enqueue?.(direct.map((d) => d.message));
  return committed;
}

/** The attribute of an object's item that lists the events it caused (`CommitOptions.recordOn`). */
export const EVENT_IDS = 'eventIds';

/**
 * `item` (a Put or an Update of a transaction) also appending `ids` to its `eventIds` list: a
 * Put's item gets them, an Update's expression gets one more SET assignment (in its SET
 * clause, or a SET clause of its own).
 */
export function recordEventIds(item: TransactItem, ids: readonly string[]): TransactItem {
  if (item.Put) {
    const Item = item.Put.Item as Record<string, unknown>;
    const before = Array.isArray(Item[EVENT_IDS]) ? (Item[EVENT_IDS] as string[]) : [];
    return { ...item, Put: { ...item.Put, Item: { ...Item, [EVENT_IDS]: [...before, ...ids] } } };
  }
  return withSet(
    item,
    'recordOn: the item keeping the event ids',
    `${EVENT_IDS} = list_append(if_not_exists(${EVENT_IDS}, :outboxNoEvents), :outboxEventIds)`,
    { ':outboxNoEvents': [], ':outboxEventIds': [...ids] },
  );
}

/** `item` (a Put or an Update of a transaction) also setting `name` to `value`. */
function withAttribute(item: TransactItem, name: string, value: unknown): TransactItem {
  if (item.Put) return { ...item, Put: { ...item.Put, Item: { ...(item.Put.Item as Record<string, unknown>), [name]: value } } };
  return withSet(
    item,
    'carry: the item carrying the event',
    `#outbox_${name} = :outbox_${name}`,
    { [`:outbox_${name}`]: value },
    {
      [`#outbox_${name}`]: name,
    },
  );
}

/** An Update of a transaction (`what` it is, for the error) with one more SET assignment (in its SET clause, or a SET clause of its own). */
function withSet(
  item: TransactItem,
  what: string,
  assign: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
): TransactItem {
  const u = item.Update;
  if (!u?.UpdateExpression) throw new Error(`${what} must be a Put or an Update`);
  const expression = /(^|\s)SET\s/.test(u.UpdateExpression)
    ? u.UpdateExpression.replace(/(^|\s)SET\s/, (m) => `${m}${assign}, `)
    : `SET ${assign} ${u.UpdateExpression}`;
  return {
    ...item,
    Update: {
      ...u,
      UpdateExpression: expression,
      ExpressionAttributeValues: { ...u.ExpressionAttributeValues, ...values },
      ...(names ? { ExpressionAttributeNames: { ...u.ExpressionAttributeNames, ...names } } : {}),
    },
  };
}

/** The compact event item (conditional: an event id is written once). */
function eventPut(item: StoredEvent & { createdAt: string; expiresAt: number; [extra: string]: unknown }): TransactItem {
  return {
    Put: {
      TableName: table(),
      Item: { ...eventKey(item.id), ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * An event item the stream consumer writes, once (a replay finds it there): an event that a
 * transaction carried inside its first event's item (`more`), fanned out from its own stream
 * record like any other; or an event carried on the item that caused it (`carry`), whose
 * item names that item (`carriedBy`) and is fanned out from that item's record (the stream
 * filter leaves the event item's own record alone).
 */
export async function writeEventItemOnce(
  ev: StoredEvent & { carriedBy?: string },
  head: { createdAt: string; expiresAt: number },
): Promise<void> {
  try {
    await db().send(new PutCommand(eventPut({ ...ev, ...head }).Put!));
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}
