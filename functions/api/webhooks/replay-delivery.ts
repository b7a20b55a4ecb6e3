import { db } from '../../platform/clients';
import { getItem, isConditionFailure, table, UpdateCommand } from '../../platform/table';
import { deliveryKey, enqueueDeliveries, messageFor, recoveryDue, toApiDelivery, type DeliveryItem } from '../../events/deliveries';
import { getEndpoint, isIdShaped } from '../../events/endpoints';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../http/errors';

/**
 * POST /v1/webhooks/deliveries/{id}/replay (DESIGN 6.6, 6.9): re-send now on the same
 * delivery record: same delivery id and event id (X-Webhook-Id), one more attempt, status
 * `pending` until that attempt succeeds or fails. It starts a new message chain (`seq` + 1),
 * so a retry still waiting in the queue for this delivery is dropped rather than doubled.
 * Works for any status; it reaches a disabled endpoint too (a 2xx re-enables it).
 */
export const handler = endpoint({ description: 'Re-send a delivery now (same event id).' }, async ({ params, principal }) => {
  const id = params.id;
  if (!isIdShaped(id, 'dlv')) throw notFound(MSG.deliveryNotFound);
  for (let round = 0; round < 3; round++) {
    const d = await getItem<DeliveryItem>(deliveryKey(id));
    if (!d || d.ownerId !== principal.id) throw notFound(MSG.deliveryNotFound);
    if (!(await getEndpoint(principal.id, d.endpointId))) throw notFound(MSG.webhookEndpointNotFound);
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const due = recoveryDue(id, nowMs);
    let updated: DeliveryItem;
    try {
      const out = await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: deliveryKey(id),
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
            ':owner': principal.id,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = out.Attributes as DeliveryItem;
    } catch (e) {
      if (isConditionFailure(e)) continue; // replayed or recovered concurrently: look again
      throw e;
    }
    // If this fails, recovery re-enqueues the delivery when it is overdue.
    await enqueueDeliveries([messageFor(updated)]);
    return ok(202, 'Delivery replay queued', toApiDelivery(updated));
  }
  throw conflict('Delivery is being replayed concurrently', 'replay_conflict');
});
