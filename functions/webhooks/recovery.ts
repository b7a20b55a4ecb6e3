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
import { queue } from '../platform/clients';
import { getItem } from '../platform/table';
import { deliveryKey, leaseForRecovery, messageFor, recoveryDue, type DeliveryItem } from './delivery-store';
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
  const seq = await leaseForRecovery(d.id, recoveryDue(d.id, nowMs), job.leasedSk);
  if (seq === undefined) return;
  // If this send fails, the delivery is overdue again a grace period from now.
  await queue().send(
    new SendMessageCommand({ QueueUrl: config.queueUrl('webhooks'), MessageBody: JSON.stringify(messageFor({ ...d, seq })) }),
  );
  logger.info('webhook delivery re-enqueued', { deliveryId: d.id, endpointId: d.endpointId, seq, dueAt: job.dueAt });
}
