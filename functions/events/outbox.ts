/**
 * Transactional outbox (DESIGN 2, event path). Every feature records its state change and
 * the events it causes through `commit`, in ONE DynamoDB transaction:
 *
 *   caller's items + one event item per event + one delivery item per (event, receiving
 *   endpoint)
 *
 * Receivers: the event's `to` participant, plus the provider of a merchant. Each receiver's
 * enabled endpoints subscribed to the type (or `*`) get a delivery. After the commit one SQS
 * message per delivery is enqueued; if that fails (or the process dies first), nothing is
 * lost: every pending delivery sits on the due index and the `webhook.recovery` kind
 * re-enqueues it once it is overdue. Delivery records are the truth; SQS is transport.
 *
 * The caller's items come first, so `cancellationCodes(e)[i]` still indexes the caller's
 * i-th item when the transaction is cancelled.
 *
 * Sandbox only: an event a simulated bank must answer also puts its event item on the due
 * index (kind `sandbox.bank`): the caller passes `sandboxBankDue` (events/sandbox-bank.ts) as the
 * `eventDue` hook; the outbox imports nothing of the sandbox.
 */
import { config } from '../config';
import { newId } from '../domain/ids';
import { getParticipant } from '../identity/participant-store';
import { nowIso, realNowIso, table, transact, type TransactItem } from '../platform/table';
import { currentTestClock } from '../platform/clock';
import {
  deliveriesByOwnerPk,
  deliveryKey,
  enqueueDeliveries,
  eventKey,
  messageFor,
  recoveryDue,
  recoveryGraceSeconds,
  type DeliveryItem,
} from '../webhooks/delivery-store';
import { getEndpoint, listEndpoints, type EndpointItem } from '../webhooks/endpoint-store';
import { logger } from '../platform/log';
import { isEventType, subscribes } from './types';
import { EVENT_RETENTION_SECONDS, eventsOwnerPk, eventsSk } from './views';

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
  /** The delivery records written for this event (one per receiving endpoint). */
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

async function infoOf(to: string): Promise<{ provider: string | null; simulated: boolean } | undefined> {
  let info = receiverInfo.get(to);
  if (info === undefined) {
    const p = await getParticipant(to);
    if (!p) return undefined; // not cached: it may be created later
    info = { provider: p.type === 'merchant' && p.providerId ? p.providerId : null, simulated: p.type === 'bank' && p.simulated === true };
    receiverInfo.set(to, info);
  }
  return info;
}

/** Commit the items and the events atomically, then enqueue the deliveries. */
export async function commit(items: TransactItem[], events: EventSpec[], options: CommitOptions = {}): Promise<CommittedEvent[]> {
  // The event's time is the clock's (a test clock's in its context, DESIGN 8.7); deliveries
  // and the retention TTL always run on real time.
  const createdAt = nowIso();
  const createdMs = Date.parse(createdAt);
  const sentAt = realNowIso();
  const sentMs = Date.parse(sentAt);
  const testClock = currentTestClock();
  const maxAttempts = Math.max(1, Math.floor(config.webhookMaxAttempts()));
  // Endpoints of each receiver, read once per commit (they change; never cached longer).
  const endpointsOf = new Map<string, Promise<EndpointItem[]>>();
  const endpoints = (owner: string) => {
    let p = endpointsOf.get(owner);
    if (!p) endpointsOf.set(owner, (p = listEndpoints(owner)));
    return p;
  };

  for (const e of events) {
    // Endpoints can subscribe only to listed types (events/types.ts); `*` still receives this one.
    if (!isEventType(e.type)) logger.warn('event type not in events/types.ts', { type: e.type });
  }
  const infos: ({ simulated: boolean; provider: string | null } | undefined)[] = [];
  const targets = await Promise.all(
    events.map(async (e, i): Promise<EndpointItem[]> => {
      const info = (infos[i] = await infoOf(e.to));
      if (e.endpointId) {
        const ep = await getEndpoint(e.to, e.endpointId);
        return ep ? [ep] : [];
      }
      const receivers = info?.provider ? [e.to, info.provider] : [e.to];
      const lists = await Promise.all(receivers.map(endpoints));
      return lists.flat().filter((ep) => ep.status === 'enabled' && subscribes(ep.events, e.type));
    }),
  );

  const committed: CommittedEvent[] = [];
  const eventItems: TransactItem[] = [];
  const deliveries: DeliveryItem[] = [];
  events.forEach((e, i) => {
    const id = newId('evt');
    const data = testClock ? { ...e.data, testClock } : e.data;
    const body = JSON.stringify({ id, type: e.type, createdAt, data });
    const eps = targets[i]!;
    const deliveryIds: string[] = [];
    for (const ep of eps) {
      const dId = newId('dlv');
      deliveryIds.push(dId);
      deliveries.push({
        ...deliveryKey(dId),
        id: dId,
        eventId: id,
        eventType: e.type,
        endpointId: ep.id,
        ownerId: ep.ownerId,
        status: 'pending',
        attempts: 0,
        maxAttempts,
        seq: 1,
        ...(e.endpointId ? { manual: true } : {}),
        lastStatusCode: null,
        lastError: null,
        lastAttemptAt: null,
        nextAttemptAt: sentAt,
        attemptLog: [],
        createdAt: sentAt,
        updatedAt: sentAt,
        gsi2pk: deliveriesByOwnerPk(ep.ownerId),
        gsi2sk: `${sentAt}#${dId}`,
        ...recoveryDue(dId, sentMs),
      });
    }
    committed.push({ id, type: e.type, to: e.to, createdAt, deliveryIds });
    eventItems.push({
      Put: {
        TableName: table(),
        Item: {
          ...eventKey(id),
          id,
          type: e.type,
          to: e.to,
          data,
          /** The exact bytes every delivery of this event sends and signs. */
          body,
          deliveryIds,
          createdAt,
          // The events API (events/views.ts): listed by the addressee and by a merchant's
          // provider, newest first, for 30 days (the table's TTL attribute).
          gsi3pk: eventsOwnerPk(e.to),
          gsi3sk: eventsSk(createdAt, id),
          ...(infos[i]?.provider ? { gsi4pk: eventsOwnerPk(infos[i]!.provider!), gsi4sk: eventsSk(createdAt, id) } : {}),
          expiresAt: Math.floor(sentMs / 1000) + EVENT_RETENTION_SECONDS,
          // Sandbox only: an event a simulated bank must answer is due for the simulator (events/sandbox-bank.ts).
          ...options.eventDue?.(infos[i], e.type, id, createdMs),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  });

  const total = items.length + eventItems.length + deliveries.length;
  if (total > TRANSACTION_LIMIT) throw new OutboxTooLargeError(total, items.length, eventItems.length, deliveries.length);

  await transact([
    ...items,
    ...eventItems,
    ...deliveries.map((d) => ({ Put: { TableName: table(), Item: d, ConditionExpression: 'attribute_not_exists(pk)' } })),
  ]);
  // Where each delivery's due entry is (recoveryDue above): its first claim need not move it.
  const recoveryAt = sentMs + recoveryGraceSeconds() * 1000;
  await enqueueDeliveries(deliveries.map((d) => messageFor(d, recoveryAt)));
  return committed;
}
