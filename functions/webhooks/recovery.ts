/**
 * Due kind `webhook.recovery` (DESIGN 2, 9.6): a pending delivery is on the due index at the
 * time the tick must send it a message if none came: a retry waiting longer than a message
 * may be delayed, at its next attempt; a retry riding a delayed message, or a delivery whose
 * first message could not be sent, a grace period after it was expected (the message was
 * lost, never sent, or moved to the DLQ by SQS's redrive). Recovery starts a new message
 * chain: `seq` + 1 (older messages of this delivery are then dropped by the worker), the due
 * time moved a grace period ahead, then one message enqueued. While an attempt holds the
 * delivery (its lease), recovery waits until a grace period after the lease instead: the
 * attempt in flight may well succeed (a message that SQS took but reported as refused).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { config } from '../config';
import { logger } from '../platform/log';
import { queue } from '../platform/clients';
import { getItem } from '../platform/table';
import { RECOVERY_KIND, deliveryKey, leaseForRecovery, messageFor, overdueAt, recoveryDue, type DeliveryItem } from './delivery-store';
import { releaseClaim, rescheduleClaim, type DueJob } from '../platform/due';

export async function recoverDelivery(job: DueJob): Promise<void> {
  const d = await getItem<DeliveryItem>(job.key);
  if (!d) return;
  if (d.status !== 'pending') {
    // Final deliveries leave the index themselves; clear a leftover claim, if it is ours.
    await releaseClaim(deliveryKey(d.id), job.leasedSk);
    return;
  }
  const nowMs = Date.parse(job.now);
  // The lease is real time (the worker's clock), whatever time the tick says it is.
  const leased = await leaseForRecovery(d.id, recoveryDue(d.id, nowMs), job.leasedSk, Date.now());
  if (!leased) return;
  if ('heldUntil' in leased) {
    // Due again a grace period after the lease, while our claim holds and it is pending (the
    // attempt's outcome moves or removes the entry first; a worker that died holding it does not).
    // A recovery job never runs under a test clock, so this is the real due index.
    await rescheduleClaim(job.key, RECOVERY_KIND, d.id, new Date(overdueAt(leased.heldUntil)), job.leasedSk, 'pending');
    logger.info('webhook delivery recovery waits for the attempt in flight', { deliveryId: d.id, endpointId: d.endpointId });
    return;
  }
  const { seq } = leased;
  // If this send fails, the delivery is overdue again a grace period from now.
  await queue().send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl('webhooks'),
      MessageBody: JSON.stringify(messageFor({ ...d, seq }, overdueAt(nowMs))),
    }),
  );
  logger.info('webhook delivery re-enqueued', { deliveryId: d.id, endpointId: d.endpointId, seq, dueAt: job.dueAt });
}
