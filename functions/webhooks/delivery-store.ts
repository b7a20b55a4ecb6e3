/**
 * Webhook delivery records: one per (event, endpoint), the source of truth of a delivery.
 * Its id is made from the event's and the endpoint's (`deliveryIdFor`). A delivery the stream
 * consumer makes has no record until its first claim: the consumer writes the receiver's
 * receipt (which names the delivery) and sends the first message, which carries what the
 * record starts with (`create`); the worker's claim creates the record (a conditional
 * UpdateItem that makes it when there is none), and two copies of that message still claim
 * once. Until then the read side shows the delivery from the receipt (`unclaimedDelivery`,
 * events/views.ts). Other messages only carry the ids; the worker conditionally updates this
 * item. The record is lean (written twice for a delivery that succeeds at once: claimed,
 * answered) and on no index but the due index, and there only while a message may be missing:
 * lists read it through the events' receipts (events/views.ts).
 *
 * Concurrency (see docs/decisions/webhook-delivery.md):
 * - `seq` names the live message chain. Every (re-)enqueue that starts a new chain (replay,
 *   recovery) increments it; a message whose `seq` is older is superseded and dropped.
 * - An attempt is claimed with a conditional write (`attempts` unchanged, no live lease), so
 *   two copies of a message never POST at the same time; the result is recorded only while
 *   that claim holds.
 * - A retry waits as a new delayed message (`chainMessageId` names it) or, past SQS's 15
 *   minutes, on the due index; either way the item is on the due index then, at the time the
 *   tick must send a message if none came: the next attempt plus a grace period (a delayed
 *   message that got lost), or the next attempt itself (a long wait). The recovery kind
 *   re-enqueues what is still there at that time.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { config } from '../config';
import { BASE62 } from '../domain/ids';
import { logger } from '../platform/log';
import { queue } from '../platform/clients';
import { realDueAttributes } from '../platform/due';
import { db } from '../platform/clients';
import { unmarshallItem } from '../platform/marshall';
import { getItem, isConditionFailure, table, UpdateCommand } from '../platform/table';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** Attempts kept on the item (the count `attempts` is exact; the log keeps the latest). */
export const ATTEMPT_LOG_SIZE = 20;
/**
 * Attempts whose answer (headers and the first 4 KB of the body) the log keeps: the latest 5.
 * Older ones keep their status, error and timing (docs/decisions/delivery-attempts.md: the
 * record is written at every attempt, so its size is paid again at every write).
 */
export const ANSWERS_KEPT = 5;
/** Delivery records are kept as long as their events (DESIGN 9.3: 30 days; TTL `expiresAt`). */
export const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

export interface AttemptRecord {
  attempt: number;
  at: string;
  statusCode: number | null;
  /** timeout | connection_error | dns_error | address_not_allowed | endpoint_disabled ... */
  error: string | null;
  durationMs: number;
  /** The receiver's answer (headers, body cut at 4 KB), on the latest `ANSWERS_KEPT` attempts that got one. */
  response?: { headers: Record<string, string>; body: string };
}

/** The log with `record` appended: the latest `ATTEMPT_LOG_SIZE`, answers kept on the latest `ANSWERS_KEPT`. */
export function appendAttempt(log: readonly AttemptRecord[] | undefined, record: AttemptRecord): AttemptRecord[] {
  const next = [...(log ?? []), record].slice(-ATTEMPT_LOG_SIZE);
  return next.map((a, i) => {
    if (i >= next.length - ANSWERS_KEPT || a.response === undefined) return a;
    const { response: _dropped, ...rest } = a;
    return rest;
  });
}

export interface DeliveryItem {
  pk: string;
  sk: string;
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  /** The receiving participant (the endpoint's owner). */
  ownerId: string;
  status: DeliveryStatus;
  attempts: number;
  /** The attempt number after which a failure is final (replays raise it by one). */
  maxAttempts: number;
  seq: number;
  /** A test event or a replay: sent even to a disabled endpoint, and a 2xx re-enables it. */
  manual?: boolean;
  /** Absent until the first attempt (a lean record: nothing is written that says nothing). */
  lastStatusCode?: number | null;
  lastError?: string | null;
  lastAttemptAt?: string | null;
  /** Absent: due at once. */
  nextAttemptAt?: string | null;
  deliveredAt?: string;
  /** TTL (epoch seconds): 30 days after creation (DESIGN 9.3). Release-2 records have none. */
  expiresAt?: number;
  /** The latest attempts. A record no attempt has touched yet has none: read it with `?? []`. */
  attemptLog: AttemptRecord[];
  /** Epoch ms until which an attempt is in flight, and the chain that holds it. */
  leaseUntil?: number;
  leaseSeq?: number;
  /** The claim that holds the lease: a claim the SDK retried after DynamoDB applied it knows itself by it. */
  leaseToken?: string;
  /**
   * The token of the delayed message that carries the scheduled retry (the message's `chain`):
   * another message of the chain arriving before the retry is due is dropped.
   */
  chainMessageId?: string;
  /** Failed for good, and its message is still owed to the DLQ. */
  dlqPending?: boolean;
  /** Attempts cut at the fast lane's budget and given back (sent, not counted: webhooks/lanes.ts). */
  cuts?: number;
  createdAt: string;
  updatedAt?: string;
  duePk?: string;
  dueSk?: string;
  /** Shown from its receipt: the stream consumer made it, and no claim has made its record yet (never stored). */
  unclaimed?: true;
  [extra: string]: unknown;
}

/** The SQS message body. `dlq` marks a message the worker moved to the DLQ itself. */
export interface DeliveryMessage {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  ownerId: string;
  seq: number;
  dlq?: true;
  /**
   * Where the delivery's due entry is, as its sender knew it: epoch ms, or null when it is on
   * no due index (a delivery the stream consumer just made). Within one chain the entry only
   * ever moves later, so while an attempt's lease ends well before it the claim leaves it
   * where it is (no due-index write). Absent (older messages): the claim moves it.
   */
  recoveryAt?: number | null;
  /** The retry this message carries (= the delivery's `chainMessageId` while it waits). */
  chain?: string;
  /** A first message from the stream consumer: what the record starts with (its claim makes it). */
  create?: DeliveryCreation;
}

/** What a delivery's record starts with, besides the ids its message carries. */
export interface DeliveryCreation {
  eventType: string;
  createdAt: string;
  maxAttempts: number;
}

/** WEBHOOK_MAX_ATTEMPTS, at least 1: a new delivery's attempts. */
export const maxAttempts = () => Math.max(1, Math.floor(config.webhookMaxAttempts()));

export const deliveryKey = (id: string) => ({ pk: `WHDL#${id}`, sk: 'WHDL' });
export const eventKey = (id: string) => ({ pk: `EVT#${id}`, sk: 'EVT' });

const BODY = /^[a-z]+_([0-9A-Za-z]+)$/;

/**
 * The one delivery of an event to an endpoint: `dlv_` + the event id's body + the endpoint
 * id's body (both time-ordered, so ids sort by event), or a hash of both for ids of another
 * shape. The same pair always gives the same id: that is what makes creating it idempotent.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  const e = BODY.exec(eventId)?.[1];
  const p = BODY.exec(endpointId)?.[1];
  if (e && p && e.length + p.length <= 60) return `dlv_${e}${p}`;
  const h = createHash('sha256').update(`${eventId}|${endpointId}`).digest();
  return `dlv_${[...h.subarray(0, 24)].map((b) => BASE62[b % 62]).join('')}`;
}

/** A new delivery record: pending, attempt 0, chain 1, and nothing else that says nothing yet. */
export function newDelivery(d: {
  eventId: string;
  eventType: string;
  endpointId: string;
  ownerId: string;
  createdAt: string;
  maxAttempts: number;
  manual?: boolean;
}): DeliveryItem {
  const id = deliveryIdFor(d.eventId, d.endpointId);
  return {
    ...deliveryKey(id),
    id,
    eventId: d.eventId,
    eventType: d.eventType,
    endpointId: d.endpointId,
    ownerId: d.ownerId,
    status: 'pending',
    attempts: 0,
    maxAttempts: d.maxAttempts,
    seq: 1,
    ...(d.manual ? { manual: true } : {}),
    createdAt: d.createdAt,
    expiresAt: Math.floor(Date.parse(d.createdAt) / 1000) + DELIVERY_RETENTION_SECONDS,
  } as DeliveryItem;
}

/**
 * Its first message could not be sent: put its record on the due index, so that recovery sends
 * it a grace period from now (only while nothing else happened to it: a record that a claim
 * made meanwhile is left alone unless it is still untouched).
 */
export async function awaitRecovery(d: DeliveryItem, nowMs: number): Promise<void> {
  const due = recoveryDue(d.id, nowMs);
  const ignoreTaken = (e: unknown) => {
    if (!isConditionFailure(e)) throw e;
  };
  try {
    await db().send(new PutCommand({ TableName: table(), Item: { ...d, ...due }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return;
  } catch (e) {
    ignoreTaken(e);
  }
  await db()
    .send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(d.id),
        UpdateExpression: 'SET duePk = :duePk, dueSk = :dueSk',
        ConditionExpression: '#s = :pending AND seq = :one AND attempts = :zero AND attribute_not_exists(duePk)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':duePk': due.duePk, ':dueSk': due.dueSk, ':pending': 'pending', ':one': 1, ':zero': 0 },
      }),
    )
    .catch(ignoreTaken);
}

/** The first message of a delivery the stream consumer made: it carries what the record starts with. */
export const firstMessage = (d: DeliveryItem): DeliveryMessage => ({
  ...messageFor(d, null),
  create: { eventType: d.eventType, createdAt: d.createdAt, maxAttempts: d.maxAttempts },
});

/**
 * The SET clauses (and their values) that make a missing record `d` (as `newDelivery` makes
 * it), leaving an existing one as it is (`if_not_exists`); `own` names attributes the caller's
 * update sets itself. The caller's condition allows `attribute_not_exists(pk)`.
 */
export function creationSets(d: DeliveryItem, own: readonly string[] = []): { sets: string[]; values: Record<string, unknown> } {
  const sets: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(d)) {
    if (name === 'pk' || name === 'sk' || name === 'unclaimed' || own.includes(name) || value === undefined) continue;
    const ref = name === 'status' ? '#s' : name;
    sets.push(`${ref} = if_not_exists(${ref}, :c_${name})`);
    values[`:c_${name}`] = value;
  }
  return { sets, values };
}

/**
 * A delivery the stream consumer made whose record its first claim has not made yet, as the
 * read side shows it: pending, no attempt, from its receipt (`unclaimed`: no record behind
 * it). Undefined when the id is not the delivery of `eventId` to an endpoint (`deliveryIdFor`).
 */
export function unclaimedDelivery(a: {
  id: string;
  eventId: string;
  eventType: string;
  ownerId: string;
  createdAt: string;
}): DeliveryItem | undefined {
  const e = BODY.exec(a.eventId)?.[1];
  if (!e || !a.id.startsWith(`dlv_${e}`)) return undefined;
  const endpointId = `whe_${a.id.slice(4 + e.length)}`;
  if (deliveryIdFor(a.eventId, endpointId) !== a.id) return undefined;
  return {
    ...newDelivery({
      eventId: a.eventId,
      eventType: a.eventType,
      endpointId,
      ownerId: a.ownerId,
      createdAt: a.createdAt,
      maxAttempts: maxAttempts(),
    }),
    unclaimed: true,
  };
}

/** The event id a delivery id was made from (`deliveryIdFor` of two `newId` ids), or undefined. */
export function eventIdOfDelivery(id: string): string | undefined {
  const m = /^dlv_([0-9A-Za-z]{23})[0-9A-Za-z]{23}$/.exec(id);
  return m ? `evt_${m[1]}` : undefined;
}

export const RECOVERY_KIND = 'webhook.recovery';
/** How long past its expected next attempt a pending delivery waits before recovery re-enqueues it. */
export const recoveryGraceSeconds = () => Number(process.env.WEBHOOK_RECOVERY_GRACE_SECONDS || 300);

/** When a delivery expected at `expectedAtMs` is overdue: a grace period later. */
export const overdueAt = (expectedAtMs: number) => expectedAtMs + recoveryGraceSeconds() * 1000;

/** Due attributes: overdue `graceSeconds` after `expectedAtMs`. */
export function recoveryDue(deliveryId: string, expectedAtMs: number): { duePk: string; dueSk: string } {
  return realDueAttributes(RECOVERY_KIND, deliveryId, new Date(overdueAt(expectedAtMs)));
}

export function messageFor(
  d: Pick<DeliveryItem, 'id' | 'eventId' | 'endpointId' | 'ownerId' | 'seq'>,
  recoveryAt?: number | null,
  chain?: string,
): DeliveryMessage {
  return {
    deliveryId: d.id,
    eventId: d.eventId,
    endpointId: d.endpointId,
    ownerId: d.ownerId,
    seq: d.seq,
    ...(recoveryAt !== undefined ? { recoveryAt } : {}),
    ...(chain !== undefined ? { chain } : {}),
  };
}

const isCreation = (c: unknown): c is DeliveryCreation =>
  typeof c === 'object' &&
  c !== null &&
  typeof (c as DeliveryCreation).eventType === 'string' &&
  typeof (c as DeliveryCreation).createdAt === 'string' &&
  Number.isInteger((c as DeliveryCreation).maxAttempts);

export function parseMessage(body: string): DeliveryMessage | undefined {
  try {
    const m = JSON.parse(body) as Partial<DeliveryMessage>;
    if (
      typeof m.deliveryId === 'string' &&
      typeof m.eventId === 'string' &&
      typeof m.endpointId === 'string' &&
      typeof m.ownerId === 'string' &&
      typeof m.seq === 'number'
    ) {
      return {
        deliveryId: m.deliveryId,
        eventId: m.eventId,
        endpointId: m.endpointId,
        ownerId: m.ownerId,
        seq: m.seq,
        ...(m.dlq ? { dlq: true as const } : {}),
        ...(typeof m.recoveryAt === 'number' || m.recoveryAt === null ? { recoveryAt: m.recoveryAt } : {}),
        ...(typeof m.chain === 'string' ? { chain: m.chain } : {}),
        ...(isCreation(m.create)
          ? { create: { eventType: m.create.eventType, createdAt: m.create.createdAt, maxAttempts: m.create.maxAttempts } }
          : {}),
      };
    }
  } catch {
    /* not ours */
  }
  return undefined;
}

/**
 * Send delivery messages to the fast lane (batches of 10, in parallel). Never throws: the
 * ids of the deliveries whose message was not sent are returned; the caller makes sure each
 * is on the due index, where recovery sends it later.
 */
export async function enqueueDeliveries(messages: DeliveryMessage[]): Promise<{ sent: number; failed: string[] }> {
  if (messages.length === 0) return { sent: 0, failed: [] };
  let url: string;
  try {
    url = config.queueUrl('webhooks');
  } catch (error) {
    logger.error('webhook queue not configured', { error: error as Error });
    return { sent: 0, failed: messages.map((m) => m.deliveryId) };
  }
  const batches: DeliveryMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
  let sent = 0;
  const failed: string[] = [];
  await Promise.all(
    batches.map(async (batch) => {
      try {
        const out = await queue().send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: batch.map((m, n) => ({ Id: String(n), MessageBody: JSON.stringify(m) })),
          }),
        );
        sent += out.Successful?.length ?? 0;
        for (const f of out.Failed ?? []) failed.push(batch[Number(f.Id)]!.deliveryId);
      } catch (error) {
        failed.push(...batch.map((m) => m.deliveryId));
        logger.warn('webhook deliveries not enqueued (recovery will)', { count: batch.length, error: (error as Error).name });
      }
    }),
  );
  if (failed.length) logger.warn('webhook deliveries not enqueued', { failed: failed.length, deliveryIds: failed.slice(0, 20) });
  return { sent, failed };
}

export const getDelivery = (id: string) => getItem<DeliveryItem>(deliveryKey(id));

/**
 * Re-arm a delivery for one more attempt now (replay): status pending, a new message chain
 * (`seq` + 1), due for recovery. Conditioned on the `seq` read and the owner; undefined when
 * it changed meanwhile (replayed or recovered concurrently: read it again).
 */
export async function rearmForReplay(d: DeliveryItem, ownerId: string, nowMs: number): Promise<DeliveryItem | undefined> {
  const now = new Date(nowMs).toISOString();
  const due = recoveryDue(d.id, nowMs);
  // A delivery not claimed yet (`unclaimed`: shown from its receipt) gets its record now.
  const made = d.unclaimed ? creationSets(d, ['status', 'seq', 'maxAttempts']) : undefined;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(d.id),
        UpdateExpression: `SET ${made ? `${made.sets.join(', ')}, ` : ''}#s = :pending, seq = :nextSeq, maxAttempts = :max, manual = :t, nextAttemptAt = :now, updatedAt = :now, duePk = :duePk, dueSk = :dueSk, replays = if_not_exists(replays, :zero) + :one REMOVE dlqPending`,
        ConditionExpression: `${made ? 'attribute_not_exists(pk) OR ' : ''}(seq = :seq AND ownerId = :owner)`,
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ...made?.values,
          ':pending': 'pending',
          ':nextSeq': d.seq + 1,
          // pending: one attempt more than planned; delivered/failed: exactly one more
          ':max': d.status === 'pending' ? Math.max(d.maxAttempts, d.attempts) + 1 : d.attempts + 1,
          ':t': true,
          ':now': now,
          ':duePk': due.duePk,
          ':dueSk': due.dueSk,
          ':zero': 0,
          ':one': 1,
          ':seq': d.seq,
          ':owner': ownerId,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as DeliveryItem;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

/**
 * The tick re-enqueues an overdue pending delivery: a new chain (`seq` + 1) due again a grace
 * period later, only while the tick's claim holds (any attempt since then moved `dueSk`: it
 * is alive) and no attempt holds the delivery at `realNowMs`. An attempt in flight is never
 * superseded by recovery: its 2xx must end the delivery, not be followed by a second POST.
 * The new chain's `seq`; `heldUntil` when an attempt's lease refused it (recovery is then due
 * again a grace period after the lease: recovery.ts); undefined when someone else moved on.
 */
export async function leaseForRecovery(
  id: string,
  due: { duePk: string; dueSk: string },
  leasedSk: string,
  realNowMs: number,
): Promise<{ seq: number } | { heldUntil: number } | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(id),
        UpdateExpression:
          'SET seq = seq + :one, duePk = :duePk, dueSk = :dueSk, updatedAt = :now, recoveries = if_not_exists(recoveries, :zero) + :one',
        ConditionExpression: '#s = :pending AND dueSk = :leased AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :realNow)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':duePk': due.duePk,
          ':dueSk': due.dueSk,
          ':now': new Date().toISOString(),
          ':pending': 'pending',
          ':leased': leasedSk,
          ':realNow': realNowMs,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { seq: (out.Attributes as DeliveryItem).seq };
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
    const old = e.Item ? (unmarshallItem(e.Item) as DeliveryItem) : undefined;
    const held = old?.status === 'pending' && old.dueSk === leasedSk && typeof old.leaseUntil === 'number' && old.leaseUntil > realNowMs;
    return held ? { heldUntil: old.leaseUntil! } : undefined;
  }
}
