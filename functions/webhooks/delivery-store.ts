/**
 * Webhook delivery records: one per (event, endpoint), the source of truth of a delivery.
 * SQS messages only carry the ids; the worker reads and conditionally updates this item.
 *
 * Concurrency (see docs/decisions/webhook-delivery.md):
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
import { realDueAttributes } from '../platform/due';
import { equalsFilter, indexRange, type ListRange } from '../platform/list-page';
import { db } from '../platform/clients';
import { unmarshallItem } from '../platform/marshall';
import { getItem, isConditionFailure, table, UpdateCommand } from '../platform/table';

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
  /**
   * Epoch ms at which the chain's first message put the delivery on the due index (the outbox
   * sets it; recovery and replays do not). While an attempt's lease ends well before it, the
   * claim leaves the due entry where it is (no due-index write).
   */
  recoveryAt?: number;
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
  return realDueAttributes(RECOVERY_KIND, deliveryId, new Date(expectedAtMs + recoveryGraceSeconds() * 1000));
}

export function messageFor(
  d: Pick<DeliveryItem, 'id' | 'eventId' | 'endpointId' | 'ownerId' | 'seq'>,
  recoveryAt?: number,
): DeliveryMessage {
  return {
    deliveryId: d.id,
    eventId: d.eventId,
    endpointId: d.endpointId,
    ownerId: d.ownerId,
    seq: d.seq,
    ...(recoveryAt !== undefined ? { recoveryAt } : {}),
  };
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
      return {
        deliveryId: m.deliveryId,
        eventId: m.eventId,
        endpointId: m.endpointId,
        ownerId: m.ownerId,
        seq: m.seq,
        ...(m.dlq ? { dlq: true as const } : {}),
        ...(typeof m.recoveryAt === 'number' ? { recoveryAt: m.recoveryAt } : {}),
      };
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

/** The deliveries of one receiving participant, newest first, optionally of one status and event type, as a list range. */
export function deliveryRange(ownerId: string, f: { status?: DeliveryStatus; type?: string }): ListRange {
  return indexRange('gsi2', deliveriesByOwnerPk(ownerId), equalsFilter({ status: f.status, eventType: f.type }));
}

/** The stored item of a delivery id (a list cursor; the pager checks it lies in the caller's list). */
export const deliveryNamed = (id: string) => getItem(deliveryKey(id));

/**
 * The tick re-enqueues an overdue pending delivery: a new chain (`seq` + 1) due again a grace
 * period later, only while the tick's claim holds (any attempt since then moved `dueSk`: it
 * is alive). The new chain's `seq`, or undefined when someone else moved on.
 */
export async function leaseForRecovery(id: string, due: { duePk: string; dueSk: string }, leasedSk: string): Promise<number | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(id),
        UpdateExpression:
          'SET seq = seq + :one, duePk = :duePk, dueSk = :dueSk, updatedAt = :now, recoveries = if_not_exists(recoveries, :zero) + :one',
        ConditionExpression: '#s = :pending AND dueSk = :leased',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':duePk': due.duePk,
          ':dueSk': due.dueSk,
          ':now': new Date().toISOString(),
          ':pending': 'pending',
          ':leased': leasedSk,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (out.Attributes as DeliveryItem).seq;
  } catch (e) {
    if (isConditionFailure(e)) return undefined;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// The delivery worker's transitions (functions/webhooks/delivery.ts decides; these write).
// Each is one conditional update; on a failed condition the current item says why.

export type Transition = { ok: true; item: DeliveryItem } | { ok: false; item: DeliveryItem | undefined };

type UpdateInput = ConstructorParameters<typeof UpdateCommand>[0];

async function updateDelivery(
  input: Omit<UpdateInput, 'TableName' | 'ReturnValues' | 'ReturnValuesOnConditionCheckFailure'>,
): Promise<Transition> {
  try {
    const out = await db().send(
      new UpdateCommand({ ...input, TableName: table(), ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    return { ok: true, item: out.Attributes as DeliveryItem };
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
    return { ok: false, item: e.Item ? (unmarshallItem(e.Item) as DeliveryItem) : undefined };
  }
}

function dueValues(id: string, expectedAtMs: number) {
  const due = recoveryDue(id, expectedAtMs);
  return { ':duePk': due.duePk, ':dueSk': due.dueSk };
}

/** A claim leaves the due entry in place only when it falls due this long after the lease ends. */
const KEEP_DUE_MARGIN_MS = 30_000;

/**
 * Claim the next attempt of the message's chain: succeeds only when the delivery is pending,
 * of this chain (`seq`), has attempts left, nobody holds an attempt, and the attempt is due
 * by `dueByMs`. The claim moves the delivery's due entry past its lease, unless the message
 * says where the chain's due entry is (`recoveryAt`, first messages from the outbox) and
 * that is well after the lease: within one chain the entry only ever moves later, so it
 * cannot fall due while this attempt holds the delivery, and the claim writes no due-index
 * change (2 of the 4 write units of a claim).
 */
export function claimAttempt(msg: DeliveryMessage, nowMs: number, dueByMs: number): Promise<Transition> {
  const leaseUntil = nowMs + LEASE_SECONDS * 1000;
  const keepDue = msg.recoveryAt !== undefined && msg.recoveryAt > leaseUntil + KEEP_DUE_MARGIN_MS;
  return updateDelivery({
    Key: deliveryKey(msg.deliveryId),
    UpdateExpression: `SET attempts = attempts + :one, leaseUntil = :lease, leaseSeq = :seq, lastAttemptAt = :now, updatedAt = :now${keepDue ? '' : ', duePk = :duePk, dueSk = :dueSk'}`,
    ConditionExpression:
      '#s = :pending AND seq = :seq AND attempts < maxAttempts AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :nowMs) AND (attribute_not_exists(nextAttemptAt) OR attribute_type(nextAttemptAt, :nullType) OR nextAttemptAt <= :dueBy)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':one': 1,
      ':lease': leaseUntil,
      ':seq': msg.seq,
      ':now': new Date(nowMs).toISOString(),
      ':pending': 'pending',
      ':nowMs': nowMs,
      ':nullType': 'NULL',
      ':dueBy': new Date(dueByMs).toISOString(),
      ...(keepDue ? {} : dueValues(msg.deliveryId, leaseUntil)),
    },
  });
}

/** Ops moved a failed delivery's message back from the DLQ: pending again, one more attempt. */
export function reopenFromDlq(d: DeliveryItem, nowMs: number): Promise<Transition> {
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression:
      'SET #s = :pending, maxAttempts = :max, nextAttemptAt = :now, updatedAt = :now, duePk = :duePk, dueSk = :dueSk REMOVE dlqPending',
    ConditionExpression: '#s = :failed AND seq = :seq AND attempts = :a',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':pending': 'pending',
      ':failed': 'failed',
      ':max': d.attempts + 1,
      ':now': new Date(nowMs).toISOString(),
      ':seq': d.seq,
      ':a': d.attempts,
      ...dueValues(d.id, nowMs),
    },
  });
}

/** The claimed attempt is not made (endpoint gone or disabled): give it back and fail the delivery. */
export function stopClaimed(d: DeliveryItem, seq: number, reason: string): Promise<Transition> {
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression:
      'SET #s = :failed, lastError = :err, nextAttemptAt = :null, updatedAt = :now, attempts = :prev REMOVE duePk, dueSk, leaseUntil, leaseSeq',
    ConditionExpression: 'attempts = :n AND leaseSeq = :seq',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':err': reason,
      ':null': null,
      ':now': new Date().toISOString(),
      ':prev': d.attempts - 1,
      ':n': d.attempts,
      ':seq': seq,
    },
  });
}

/** Give the claimed attempt back (not made, or cut and not counted). */
export function giveBackClaim(d: DeliveryItem, seq: number): Promise<Transition> {
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression: 'SET attempts = :prev, updatedAt = :now REMOVE leaseUntil, leaseSeq',
    ConditionExpression: 'attempts = :n AND leaseSeq = :seq',
    ExpressionAttributeValues: { ':prev': d.attempts - 1, ':n': d.attempts, ':seq': seq, ':now': new Date().toISOString() },
  });
}

/** pending -> failed, leaving the due index (only while nobody holds an attempt). */
export function finalizeDelivery(d: DeliveryItem, nowMs: number, o: { error: string; dlq: boolean }): Promise<Transition> {
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression: `SET #s = :failed, lastError = :err, nextAttemptAt = :null, updatedAt = :now${o.dlq ? ', dlqPending = :t' : ''} REMOVE duePk, dueSk, leaseUntil, leaseSeq`,
    ConditionExpression: '#s = :pending AND seq = :seq AND attempts = :a AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :nowMs)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':failed': 'failed',
      ':pending': 'pending',
      ':err': o.error,
      ':null': null,
      ':now': new Date(nowMs).toISOString(),
      ':seq': d.seq,
      ':a': d.attempts,
      ':nowMs': nowMs,
      ...(o.dlq ? { ':t': true } : {}),
    },
  });
}

/** The exhausted delivery's message is in the DLQ: clear the flag that says it is owed (same chain only). */
export async function clearDlqPending(id: string, seq: number): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(id),
        UpdateExpression: 'REMOVE dlqPending',
        ConditionExpression: 'seq = :seq',
        ExpressionAttributeValues: { ':seq': seq },
      }),
    )
    .catch((e) => {
      if (!isConditionFailure(e)) throw e;
    });
}

/** What an attempt's outcome does to its delivery. */
export type AttemptEffect =
  | { kind: 'delivered' }
  | { kind: 'failed'; dlq: boolean }
  | { kind: 'retry'; nextMs: number; messageId: string }
  /** a replay superseded the chain: record the attempt only; the replay's message carries on */
  | { kind: 'superseded' };

/**
 * Record attempt `n` of the chain `mineSeq` (while our claim holds and nobody changed the
 * chain or its attempts since `cur`) and apply its effect.
 */
export function recordAttempt(
  cur: DeliveryItem,
  mineSeq: number,
  n: number,
  a: { log: AttemptRecord[]; statusCode: number | null; error: string | null; nowIso: string },
  effect: AttemptEffect,
): Promise<Transition> {
  const values: Record<string, unknown> = {
    ':log': a.log,
    ':code': a.statusCode,
    ':err': a.error,
    ':now': a.nowIso,
    ':n': n,
    ':mine': mineSeq,
    ':seq': cur.seq,
    ':max': cur.maxAttempts,
  };
  let set = 'attemptLog = :log, lastStatusCode = :code, lastError = :err, updatedAt = :now';
  let remove = 'leaseUntil, leaseSeq';
  if (effect.kind === 'delivered') {
    set += ', #s = :delivered, deliveredAt = :now, nextAttemptAt = :null';
    remove += ', duePk, dueSk, dlqPending';
    Object.assign(values, { ':delivered': 'delivered', ':null': null });
  } else if (effect.kind === 'failed') {
    set += ', #s = :failed, nextAttemptAt = :null';
    remove += ', duePk, dueSk';
    if (effect.dlq) set += ', dlqPending = :t';
    Object.assign(values, { ':failed': 'failed', ':null': null, ...(effect.dlq ? { ':t': true } : {}) });
  } else if (effect.kind === 'retry') {
    // This message carries the retry (its visibility is the delay); copies are dropped.
    set += ', nextAttemptAt = :next, duePk = :duePk, dueSk = :dueSk, chainMessageId = :mid';
    Object.assign(values, {
      ':next': new Date(effect.nextMs).toISOString(),
      ':mid': effect.messageId,
      ...dueValues(cur.id, effect.nextMs),
    });
  }
  const named = effect.kind === 'delivered' || effect.kind === 'failed';
  return updateDelivery({
    Key: deliveryKey(cur.id),
    UpdateExpression: `SET ${set} REMOVE ${remove}`,
    ConditionExpression: 'attempts = :n AND leaseSeq = :mine AND seq = :seq AND maxAttempts = :max',
    ExpressionAttributeNames: named ? { '#s': 'status' } : undefined,
    ExpressionAttributeValues: values,
  });
}
