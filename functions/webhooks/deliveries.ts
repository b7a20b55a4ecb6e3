/**
 * Webhook delivery records: one per (event, endpoint), the source of truth of a delivery.
 * SQS messages only carry the ids; the worker reads and conditionally updates this item.
 *
 * Concurrency (see docs/decisions.md, Webhooks):
 * - `seq` names the live message chain. Every (re-)enqueue that starts a new chain (replay,
 *   recovery) increments it; a message whose `seq` is older is superseded and dropped.
 * - An attempt is claimed with a conditional write (`attempts` unchanged, no live lease), so
 *   two copies of a message never POST at the same time; the result is recorded only while
 *   that claim holds.
 * - While pending, the item is on the due index at "when it is overdue" (the next expected
 *   attempt plus a grace period). The recovery kind re-enqueues what is still there then.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { logger } from '../platform/log';
import { queue } from '../platform/clients';
import { dueAttributes } from '../platform/due';
import { db } from '../platform/clients';
import { getItem, isConditionFailure, queryAll, table, UpdateCommand } from '../platform/table';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** Attempts kept on the item (the count `attempts` is exact; the log keeps the latest). */
export const ATTEMPT_LOG_SIZE = 20;

export interface AttemptRecord {
  attempt: number;
  at: string;
  statusCode: number | null;
  /** timeout | connection_error | dns_error | address_not_allowed | endpoint_disabled ... */
  error: string | null;
  durationMs: number;
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
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt?: string;
  attemptLog: AttemptRecord[];
  /** Epoch ms until which an attempt is in flight, and the chain that holds it. */
  leaseUntil?: number;
  leaseSeq?: number;
  /** The SQS message that sleeps until the scheduled retry (an early copy with another id is dropped). */
  chainMessageId?: string;
  /** Failed for good, and its message is still owed to the DLQ. */
  dlqPending?: boolean;
  createdAt: string;
  updatedAt: string;
  gsi2pk: string;
  gsi2sk: string;
  duePk?: string;
  dueSk?: string;
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
}

export const deliveryKey = (id: string) => ({ pk: `WHDL#${id}`, sk: 'WHDL' });
export const deliveriesByOwnerPk = (ownerId: string) => `WHDL#${ownerId}`;
export const eventKey = (id: string) => ({ pk: `EVT#${id}`, sk: 'EVT' });

export const RECOVERY_KIND = 'webhook.recovery';
/** How long past its expected next attempt a pending delivery waits before recovery re-enqueues it. */
export const recoveryGraceSeconds = () => Number(process.env.WEBHOOK_RECOVERY_GRACE_SECONDS || 300);
/** How long a claimed attempt holds the delivery (longer than the 10 s timeout plus DNS). */
export const LEASE_SECONDS = 30;

/** Due attributes: overdue `graceSeconds` after `expectedAtMs`. */
export function recoveryDue(deliveryId: string, expectedAtMs: number): { duePk: string; dueSk: string } {
  return dueAttributes(RECOVERY_KIND, deliveryId, new Date(expectedAtMs + recoveryGraceSeconds() * 1000));
}

export function messageFor(d: Pick<DeliveryItem, 'id' | 'eventId' | 'endpointId' | 'ownerId' | 'seq'>): DeliveryMessage {
  return { deliveryId: d.id, eventId: d.eventId, endpointId: d.endpointId, ownerId: d.ownerId, seq: d.seq };
}

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
      return { deliveryId: m.deliveryId, eventId: m.eventId, endpointId: m.endpointId, ownerId: m.ownerId, seq: m.seq, ...(m.dlq ? { dlq: true as const } : {}) };
    }
  } catch {
    /* not ours */
  }
  return undefined;
}

/**
 * Send delivery messages (batches of 10, in parallel). Never throws: a message that is not
 * sent leaves its delivery pending on the due index, and recovery enqueues it later.
 */
export async function enqueueDeliveries(messages: DeliveryMessage[]): Promise<{ sent: number; failed: number }> {
  if (messages.length === 0) return { sent: 0, failed: 0 };
  let url: string;
  try {
    url = config.queueUrl('webhooks');
  } catch (error) {
    logger.error('webhook queue not configured', { error: error as Error });
    return { sent: 0, failed: messages.length };
  }
  const batches: DeliveryMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
  let sent = 0;
  let failed = 0;
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
        failed += out.Failed?.length ?? 0;
      } catch (error) {
        failed += batch.length;
        logger.warn('webhook deliveries not enqueued (recovery will)', { count: batch.length, error: (error as Error).name });
      }
    }),
  );
  if (failed) logger.warn('webhook deliveries not enqueued', { failed, deliveryIds: messages.map((m) => m.deliveryId).slice(0, 20) });
  return { sent, failed };
}

/** A delivery as the API shows it (DESIGN 6.9), plus its latest attempts and last error. */
export function toApiDelivery(d: DeliveryItem) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    endpointId: d.endpointId,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode ?? null,
    lastError: d.lastError ?? null,
    lastAttemptAt: d.lastAttemptAt ?? null,
    nextAttemptAt: d.status === 'pending' ? (d.nextAttemptAt ?? null) : null,
    createdAt: d.createdAt,
    attemptHistory: d.attemptLog ?? [],
  };
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
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(d.id),
        UpdateExpression:
          'SET #s = :pending, seq = :nextSeq, maxAttempts = :max, manual = :t, nextAttemptAt = :now, updatedAt = :now, duePk = :duePk, dueSk = :dueSk, replays = if_not_exists(replays, :zero) + :one REMOVE dlqPending',
        ConditionExpression: 'seq = :seq AND ownerId = :owner',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
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
 * The deliveries of one receiving participant, newest first, optionally of one status and
 * event type; at most `maxItems` (the newest).
 */
export async function listDeliveries(ownerId: string, f: { status?: DeliveryStatus; type?: string }, maxItems: number): Promise<DeliveryItem[]> {
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': deliveriesByOwnerPk(ownerId) };
  const names: Record<string, string> = {};
  if (f.status) {
    filters.push('#s = :s');
    names['#s'] = 'status';
    values[':s'] = f.status;
  }
  if (f.type) {
    filters.push('eventType = :t');
    values[':t'] = f.type;
  }
  return queryAll<DeliveryItem>(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: filters.length ? filters.join(' AND ') : undefined,
      ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
    maxItems,
  );
}
