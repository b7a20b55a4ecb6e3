/**
 * The delivery worker's transitions (functions/webhooks/delivery.ts decides; these write).
 * Each is one conditional update of the delivery record; on a failed condition the current
 * item says why. The record and its messages: delivery-store.ts.
 */
import { randomUUID } from 'node:crypto';
import { db } from '../platform/clients';
import { realDueAttributes } from '../platform/due';
import { unmarshallItem } from '../platform/marshall';
import { isConditionFailure, table, UpdateCommand } from '../platform/table';
import {
  LEASE_SECONDS,
  RECOVERY_KIND,
  creationSets,
  deliveryKey,
  newDelivery,
  recoveryDue,
  type AttemptRecord,
  type DeliveryItem,
  type DeliveryMessage,
} from './delivery-store';
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
 * says where the chain's due entry is (`recoveryAt`: every sender does) and that is nowhere
 * (null) or well after the lease: within one chain the entry only ever moves later, and a
 * recovery that falls due while this attempt holds the delivery waits for the lease
 * (delivery-store.ts, leaseForRecovery), so it never supersedes the attempt. So a claim is
 * one write of the record alone (1 write unit), with no due-index change. The first claim of
 * a delivery the stream consumer made also makes its record (the message's `create`).
 */
export async function claimAttempt(msg: DeliveryMessage, nowMs: number, dueByMs: number): Promise<Transition> {
  const leaseUntil = nowMs + LEASE_SECONDS * 1000;
  const keepDue = msg.recoveryAt === null || (msg.recoveryAt !== undefined && msg.recoveryAt > leaseUntil + KEEP_DUE_MARGIN_MS);
  // An update DynamoDB applied but whose answer was lost is sent again by the SDK, and that
  // retry fails its own condition (the lease is held: by this claim). The token tells the
  // claim it holds the lease, so the message is not dropped as a stale copy (a first message
  // has no due entry to recover it: the delivery would stay pending for ever).
  const token = randomUUID();
  // A first message from the stream consumer makes the record when there is none yet.
  const made = msg.create ? creationSets(newDelivery({ ...msg, ...msg.create }), ['attempts']) : undefined;
  const r = await updateDelivery({
    Key: deliveryKey(msg.deliveryId),
    UpdateExpression: `SET ${[
      ...(made?.sets ?? []),
      `attempts = ${made ? 'if_not_exists(attempts, :zero)' : 'attempts'} + :one`,
      'leaseUntil = :lease, leaseSeq = :seq, leaseToken = :token, lastAttemptAt = :now',
      ...(keepDue ? [] : ['duePk = :duePk, dueSk = :dueSk']),
    ].join(', ')}`,
    ConditionExpression: `${made ? 'attribute_not_exists(pk) OR ' : ''}(#s = :pending AND seq = :seq AND attempts < maxAttempts AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :nowMs) AND (attribute_not_exists(nextAttemptAt) OR attribute_type(nextAttemptAt, :nullType) OR nextAttemptAt <= :dueBy))`,
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
      ':token': token,
      ...(made ? { ...made.values, ':zero': 0 } : {}),
      ...(keepDue ? {} : dueValues(msg.deliveryId, leaseUntil)),
    },
  });
  return !r.ok && r.item?.leaseToken === token ? { ok: true, item: r.item } : r;
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

/**
 * Give the claimed attempt back: not made, or cut (webhooks/lanes.ts) and not counted. A cut
 * attempt was sent (the receiver may have it): `cuts` counts them, so every request a receiver
 * saw is an attempt or a cut.
 */
export function giveBackClaim(d: DeliveryItem, seq: number, cut = false): Promise<Transition> {
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression: `SET attempts = :prev, updatedAt = :now${cut ? ', cuts = if_not_exists(cuts, :zero) + :one' : ''} REMOVE leaseUntil, leaseSeq`,
    ConditionExpression: 'attempts = :n AND leaseSeq = :seq',
    ExpressionAttributeValues: {
      ':prev': d.attempts - 1,
      ':n': d.attempts,
      ':seq': seq,
      ':now': new Date().toISOString(),
      ...(cut ? { ':zero': 0, ':one': 1 } : {}),
    },
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
  /**
   * Another attempt at `nextMs`: carried by a delayed message whose token is `chain` (the
   * delivery is due for recovery a grace period after `nextMs`, should that message get lost),
   * or, without `chain` (a wait longer than a message may be delayed), by the due index itself
   * at `nextMs`.
   */
  | { kind: 'retry'; nextMs: number; chain?: string }
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
    ':n': n,
    ':mine': mineSeq,
    ':seq': cur.seq,
    ':max': cur.maxAttempts,
  };
  let set = 'attemptLog = :log, lastStatusCode = :code, lastError = :err';
  let remove = 'leaseUntil, leaseSeq';
  if (effect.kind === 'delivered') {
    set += ', #s = :delivered, deliveredAt = :now';
    remove += ', nextAttemptAt, duePk, dueSk, dlqPending, chainMessageId';
    Object.assign(values, { ':delivered': 'delivered', ':now': a.nowIso });
  } else if (effect.kind === 'failed') {
    set += ', #s = :failed';
    remove += ', nextAttemptAt, duePk, dueSk, chainMessageId';
    if (effect.dlq) set += ', dlqPending = :t';
    Object.assign(values, { ':failed': 'failed', ...(effect.dlq ? { ':t': true } : {}) });
  } else if (effect.kind === 'retry') {
    // A delayed message (`chain`) carries the retry, and copies of the chain are dropped; a
    // longer wait is the due entry itself, which sends the message at the time.
    const due = effect.chain ? recoveryDue(cur.id, effect.nextMs) : realDueAttributes(RECOVERY_KIND, cur.id, new Date(effect.nextMs));
    set += ', nextAttemptAt = :next, duePk = :duePk, dueSk = :dueSk';
    if (effect.chain) set += ', chainMessageId = :chain';
    else remove += ', chainMessageId';
    Object.assign(values, {
      ':next': new Date(effect.nextMs).toISOString(),
      ':duePk': due.duePk,
      ':dueSk': due.dueSk,
      ...(effect.chain ? { ':chain': effect.chain } : {}),
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
