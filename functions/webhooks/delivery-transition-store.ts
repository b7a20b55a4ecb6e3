/**
 * The delivery worker's transitions (functions/webhooks/delivery.ts decides; these write).
 * Each is one conditional update of the delivery record; on a failed condition the current
 * item says why. The record and its messages: delivery-store.ts.
 */
import { db } from '../platform/clients';
import { realDueAttributes } from '../platform/due';
import { unmarshallItem } from '../platform/marshall';
import { getItem, isConditionFailure, table, UpdateCommand } from '../platform/table';
import {
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

/**
 * The next attempt of the message's chain, decided from the record as read: NO write before
 * the POST (DESIGN 10.2: deliveries are at least once per attempt; two copies of one message
 * may both POST, with the same `webhook-id` and body, and receivers dedupe on it). It may go
 * when the delivery is pending, of this chain (`seq`), has attempts left, no attempt of a
 * worker from before this rule holds it (`leaseUntil`: such workers wrote a lease), and the
 * attempt is due by `dueByMs`. The attempt's outcome write (`recordAttempt`) is conditioned on
 * the attempts as read: of two copies that both POSTed, one records the attempt, the other
 * drops. A delivery the stream consumer made whose record no attempt has made yet is read as
 * the message's `create` says (`unclaimed`: its outcome write makes the record).
 */
export async function claimAttempt(msg: DeliveryMessage, nowMs: number, dueByMs: number): Promise<Transition> {
  const stored = await getItem<DeliveryItem>(deliveryKey(msg.deliveryId), true);
  const d = stored ?? (msg.create ? { ...newDelivery({ ...msg, ...msg.create }), unclaimed: true as const } : undefined);
  if (!d) return { ok: false, item: undefined };
  const due = d.nextAttemptAt === undefined || d.nextAttemptAt === null || Date.parse(d.nextAttemptAt) <= dueByMs;
  const held = typeof d.leaseUntil === 'number' && d.leaseUntil > nowMs;
  if (d.status !== 'pending' || d.seq !== msg.seq || d.attempts >= d.maxAttempts || held || !due) return { ok: false, item: d };
  return { ok: true, item: { ...d, attempts: d.attempts + 1, lastAttemptAt: new Date(nowMs).toISOString() } };
}

/**
 * The write of an attempt `d` (as `claimAttempt` returned it, `attempts` counting it) that
 * makes its record when there is none (`unclaimed`), else conditioned on the record as read:
 * the same chain with the attempts before this one. `own` names what the caller's update sets.
 */
function attemptWrite(d: DeliveryItem, own: readonly string[], also = '') {
  const made = d.unclaimed ? creationSets(d, [...own, 'lastAttemptAt']) : undefined;
  const values: Record<string, unknown> = { ':prev': d.attempts - 1, ':seq': d.seq, ':pending': 'pending', ...made?.values };
  return {
    sets: made?.sets ?? [],
    condition: `${made ? 'attribute_not_exists(pk) OR ' : ''}(#s = :pending AND attempts = :prev AND seq = :seq${also ? ` AND ${also}` : ''})`,
    values,
  };
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

/** The attempt is not made (endpoint gone or disabled): fail the delivery (no attempt counted). */
export function stopClaimed(d: DeliveryItem, reason: string): Promise<Transition> {
  const w = attemptWrite(d, ['status', 'attempts']);
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression: `SET ${[...w.sets, '#s = :failed, lastError = :err, nextAttemptAt = :null, updatedAt = :now, attempts = :prev'].join(', ')} REMOVE duePk, dueSk`,
    ConditionExpression: w.condition,
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ...w.values, ':failed': 'failed', ':err': reason, ':null': null, ':now': new Date().toISOString() },
  });
}

/**
 * An attempt cut at the fast lane's budget (webhooks/lanes.ts) and handed to the slow lane:
 * not counted. It was sent (the receiver may have it): `cuts` counts them, so every request a
 * receiver saw is an attempt or a cut. Nothing to write for an attempt handed over before it
 * was made.
 */
export async function giveBackClaim(d: DeliveryItem, cut = false): Promise<Transition> {
  if (!cut) return { ok: true, item: d };
  const w = attemptWrite(d, ['attempts', 'cuts']);
  return updateDelivery({
    Key: deliveryKey(d.id),
    UpdateExpression: `SET ${[...w.sets, 'attempts = :prev, updatedAt = :now, cuts = if_not_exists(cuts, :zero) + :one'].join(', ')}`,
    ConditionExpression: w.condition,
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ...w.values, ':now': new Date().toISOString(), ':zero': 0, ':one': 1 },
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
 * Record attempt `n` of `cur` (the delivery as read, `attempts` = n counting this attempt;
 * `unclaimed`: no record yet, this write makes it) while nobody changed the chain, its
 * attempts or its maximum since, and apply its effect. Another copy that recorded the same
 * attempt first makes the condition fail: that copy's POST was a duplicate (at least once).
 */
export function recordAttempt(
  cur: DeliveryItem,
  n: number,
  a: { log: AttemptRecord[]; statusCode: number | null; error: string | null; nowIso: string },
  effect: AttemptEffect,
): Promise<Transition> {
  const named = effect.kind === 'delivered' || effect.kind === 'failed';
  const w = attemptWrite({ ...cur, attempts: n }, named ? ['status', 'attempts'] : ['attempts'], 'maxAttempts = :max');
  const values: Record<string, unknown> = {
    ...w.values,
    ':log': a.log,
    ':code': a.statusCode,
    ':err': a.error,
    ':n': n,
    ':max': cur.maxAttempts,
    ':at': cur.lastAttemptAt ?? a.nowIso,
  };
  let set = [...w.sets, 'attempts = :n, lastAttemptAt = :at, attemptLog = :log, lastStatusCode = :code, lastError = :err'].join(', ');
  let remove = 'leaseUntil, leaseSeq, leaseToken';
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
  return updateDelivery({
    Key: deliveryKey(cur.id),
    UpdateExpression: `SET ${set} REMOVE ${remove}`,
    ConditionExpression: w.condition,
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: values,
  });
}
