/**
 * Due kind `webhook.recovery` (DESIGN 2): a pending delivery stays on the due index at "the
 * time it is overdue" (its next expected attempt plus a grace period; every attempt moves
 * it). When the tick finds one there, its message was lost, never sent (a crash between
 * commit and enqueue, or SQS unavailable), or sent to the DLQ by SQS's redrive. Recovery
 * starts a new message chain: `seq` + 1 (older messages of this delivery are then dropped by
 * the worker), the due time moved a grace period ahead, then one message enqueued.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { logger } from '../platform/log';
import { db, queue } from '../platform/clients';
import { getItem, isConditionFailure, table, UpdateCommand } from '../platform/table';
import { deliveryKey, messageFor, recoveryDue, type DeliveryItem } from './deliveries';
import { releaseClaim, type DueJob } from '../platform/due';

export async function recoverDelivery(job: DueJob): Promise<void> {
  const d = await getItem<DeliveryItem>(job.key);
  if (!d) return;
  if (d.status !== 'pending') {
    // Final deliveries leave the index themselves; clear a leftover claim, if it is ours.
    await releaseClaim(deliveryKey(d.id), job.leasedSk);
    return;
  }
  const nowMs = Date.parse(job.now);
  const due = recoveryDue(d.id, nowMs);
  let seq: number;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: deliveryKey(d.id),
        UpdateExpression: 'SET seq = seq + :one, duePk = :duePk, dueSk = :dueSk, updatedAt = :now, recoveries = if_not_exists(recoveries, :zero) + :one',
        // Only while the tick's claim holds: any attempt since then moved dueSk (it is alive).
        ConditionExpression: '#s = :pending AND dueSk = :leased',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':duePk': due.duePk,
          ':dueSk': due.dueSk,
          ':now': new Date().toISOString(),
          ':pending': 'pending',
          ':leased': job.leasedSk,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    seq = (out.Attributes as DeliveryItem).seq;
  } catch (e) {
    if (isConditionFailure(e)) return;
    throw e;
  }
  // If this send fails, the delivery is overdue again a grace period from now.
  await queue().send(
    new SendMessageCommand({ QueueUrl: config.queueUrl('webhooks'), MessageBody: JSON.stringify(messageFor({ ...d, seq })) }),
  );
  logger.info('webhook delivery re-enqueued', { deliveryId: d.id, endpointId: d.endpointId, seq, dueAt: job.dueAt });
}
