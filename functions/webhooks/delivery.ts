/**
 * Webhook delivery worker (DESIGN 2 and 6.6): SQS event source of the `webhooks` queue,
 * partial batch failures.
 *
 * Per message: read the delivery, its endpoint and its event; decide from the record as read
 * whether the message's attempt may go (no write before the POST: DESIGN 10.2, deliveries are
 * at least once per attempt, and two copies of one message may both POST the same
 * `webhook-id` and body); POST the event's stored body, signed; record the outcome on the
 * delivery, conditioned on the attempts as read (of two copies, one records, the other
 * drops). Then:
 * - 2xx: delivered (the message is deleted);
 * - 410: the endpoint is disabled, the delivery fails, no more retries;
 * - otherwise, attempts left: the next attempt waits the backoff delay (or a longer
 *   Retry-After on 429/503). No retry waits as a message in flight (DESIGN 9.6): a wait of up
 *   to 15 minutes is a NEW message sent with that `DelaySeconds` (its `chain` token recorded
 *   on the delivery), a longer one is the delivery's due entry, which the tick turns into a
 *   message at its time; either way the message that carried the attempt is deleted;
 * - otherwise: the delivery is `failed` and the worker sends the message to the DLQ itself
 *   (marked `dlq: true`) and lets SQS delete the source message. Moving it to the DLQ by
 *   hand makes "after WEBHOOK_MAX_ATTEMPTS" exact whatever the queue's maxReceiveCount.
 *
 * The body is built here, from the event item (webhooks/event-body.ts): the same bytes on
 * every attempt of the event.
 *
 * Two lanes (functions/webhooks/lanes.ts): this worker consumes both the `webhooks` queue (fast
 * lane) and `webhooks-slow`. In the fast lane a delivery to an endpoint marked slow is handed
 * to the slow lane before its attempt, and an attempt still unanswered at the budget without
 * one of the endpoint's slots is cut, given back and handed over too. Retries stay in the
 * message's own queue.
 *
 * A message whose chain was superseded (`seq`), or whose delivery is already final, is
 * dropped. A message that arrives before its delivery's next attempt is due is dropped,
 * unless it is the one that carries that retry (its `chain`), which is sent again with the
 * remaining delay. See functions/webhooks/delivery-store.ts for the concurrency rules.
 */
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { config } from '../config';
import { logger } from '../platform/log';
import { metric } from '../platform/metrics';
import { queue } from '../platform/clients';
import { getItem } from '../platform/table';
import { randomToken } from '../domain/ids';
import { MAX_DELAY_SECONDS, maxQueueDelaySeconds, retryDelaySeconds } from './backoff';
import { eventBody, eventEnvelope, type EventBodySource } from './event-body';
import {
  appendAttempt,
  eventKey,
  messageFor,
  overdueAt,
  parseMessage,
  type AttemptRecord,
  type DeliveryItem,
  type DeliveryMessage,
} from './delivery-store';
import {
  claimAttempt,
  clearDlqPending,
  finalizeDelivery,
  giveBackClaim,
  recordAttempt,
  reopenFromDlq,
  stopClaimed,
  type AttemptEffect,
} from './delivery-transition-store';
import { getEndpoint, noteAttemptOutcome, setEndpointStatus, signingSecrets, type EndpointItem } from './endpoint-store';
import { attemptHeaders } from './signing';
import { postWebhook } from './transport';
import { LANE_QUEUES, isSlow, laneOf, toSlowLane, watchAttempt, type Lane } from './lanes';

/**
 * What becomes of a processed message: deleted (`done`), or deleted after a message to carry
 * on is sent to the same lane with `delaySeconds` (a retry, or the same message to look again).
 */
type Outcome = { kind: 'done' } | { kind: 'resend'; delaySeconds: number; message: DeliveryMessage };
const DONE: Outcome = { kind: 'done' };
const resend = (message: DeliveryMessage, seconds: number): Outcome => ({
  kind: 'resend',
  message,
  delaySeconds: Math.min(maxQueueDelaySeconds(), Math.max(0, Math.ceil(seconds))),
});

/** A message may arrive this much before its delivery's next attempt and still run. */
const EARLY_TOLERANCE_MS = 2_000;

/** The event item as the worker reads it (a release-2 item also holds its `body`: the same bytes). */
interface EventItem extends EventBodySource {
  body?: string;
  [extra: string]: unknown;
}

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const lane = laneOf(record);
      let outcome: Outcome = DONE;
      try {
        outcome = await processRecord(record, lane);
        if (outcome.kind === 'resend') {
          await queue().send(
            new SendMessageCommand({
              QueueUrl: config.queueUrl(LANE_QUEUES[lane]),
              MessageBody: JSON.stringify(outcome.message),
              DelaySeconds: outcome.delaySeconds,
            }),
          );
        }
      } catch (error) {
        if (outcome.kind === 'resend') {
          // The message to carry on was not sent: this one carries on instead, asleep until then
          // (the only wait ever held in flight, and only while SQS refuses a send).
          await queue()
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: config.queueUrl(LANE_QUEUES[lane]),
                ReceiptHandle: record.receiptHandle,
                VisibilityTimeout: Math.min(MAX_DELAY_SECONDS, outcome.delaySeconds),
              }),
            )
            .catch(() => undefined);
        }
        // The message comes back after the queue's visibility timeout; an attempt it made and
        // did not record is made again then (at least once per attempt).
        logger.error('webhook delivery failed unexpectedly', { messageId: record.messageId, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
}

const leaseHeld = (d: DeliveryItem, nowMs: number) => typeof d.leaseUntil === 'number' && d.leaseUntil > nowMs;

/** Claim the next attempt of the message's chain (due within the early tolerance). */
const claim = (msg: DeliveryMessage, nowMs: number) => claimAttempt(msg, nowMs, nowMs + EARLY_TOLERANCE_MS);

async function processRecord(record: SQSRecord, lane: Lane): Promise<Outcome> {
  const msg = parseMessage(record.body);
  if (!msg) {
    logger.error('unreadable webhook message dropped', { messageId: record.messageId });
    return DONE;
  }
  // The common case in one round trip: read the delivery, its endpoint (eventually consistent:
  // docs/decisions/webhook-delivery.md "Endpoint reads") and its event.
  const [first, ep, ev] = await Promise.all([
    claim(msg, Date.now()),
    getEndpoint(msg.ownerId, msg.endpointId, false),
    getItem<EventItem>(eventKey(msg.eventId)),
  ]);
  let r = first;
  for (let round = 0; round < 5; round++) {
    if (r.ok) return afterClaim(r.item, ep, ev, msg, record, lane);
    const d = r.item;
    const nowMs = Date.now();
    if (!d || d.status === 'delivered' || d.seq !== msg.seq) return DONE; // gone, done, or superseded
    if (d.status === 'failed') {
      // Not from the DLQ: a late copy of a finished chain, or our own DLQ hand-off to finish.
      if (!msg.dlq) return d.dlqPending ? sendToDlq(d, msg) : DONE;
      // Ops moved this message back from the DLQ: one more attempt.
      const reopened = await reopenFromDlq(d, nowMs);
      r = reopened.ok ? await claim(msg, Date.now()) : reopened;
      continue;
    }
    // pending. A lease is only ever written by a worker from before DESIGN 10.2 (claims).
    if (leaseHeld(d, nowMs)) {
      if (d.leaseSeq === msg.seq) return DONE; // a duplicate copy of the chain whose attempt is in flight
      return resend(msg, (d.leaseUntil! - nowMs) / 1000 + 1); // a replay waits for the attempt in flight
    }
    if (d.attempts >= d.maxAttempts) {
      // The last attempt was made but its outcome never recorded (crash): finish the chain.
      const fin = await finalizeDelivery(d, nowMs, { error: d.lastError ?? 'attempts_exhausted', dlq: true });
      if (fin.ok) return sendToDlq(fin.item, msg);
      r = fin;
      continue;
    }
    const dueAt = typeof d.nextAttemptAt === 'string' ? Date.parse(d.nextAttemptAt) : nowMs;
    if (dueAt - nowMs > EARLY_TOLERANCE_MS) {
      // Only the message that carries the scheduled retry waits for it (again, the time left);
      // any other is a copy. A wait past a message's delay is the due entry's, not a message's.
      if (msg.chain !== d.chainMessageId || dueAt - nowMs > maxQueueDelaySeconds() * 1000) return DONE;
      return resend(msg, (dueAt - nowMs) / 1000);
    }
    r = await claim(msg, nowMs); // the state that refused the claim has changed since: try again
  }
  return resend(msg, 5); // heavy contention: look again shortly
}

/** Holding the claim: stop if the endpoint is gone or disabled, otherwise make the attempt. */
async function afterClaim(
  d: DeliveryItem,
  ep: EndpointItem | undefined,
  ev: EventItem | undefined,
  msg: DeliveryMessage,
  record: SQSRecord,
  lane: Lane,
): Promise<Outcome> {
  if (!ep || (ep.status !== 'enabled' && !d.manual)) {
    const reason = ep ? 'endpoint_disabled' : 'endpoint_deleted';
    const stopped = await stopClaimed(d, reason);
    if (stopped.ok) logger.info('webhook delivery stopped', { deliveryId: d.id, endpointId: d.endpointId, reason });
    return DONE;
  }
  if (!ev) throw new Error(`event ${msg.eventId} of delivery ${d.id} not found`);
  if (lane === 'fast' && isSlow(ep, Date.now())) return handOver(d, record, 'endpoint_slow');
  return attempt(d, ep, ev, msg, record, lane);
}

/** Give the claimed attempt back (it was not made, or cut and not counted) and move the message to the slow lane. */
async function handOver(d: DeliveryItem, record: SQSRecord, why: 'endpoint_slow' | 'attempt_over_budget'): Promise<Outcome> {
  const back = await giveBackClaim(d, why === 'attempt_over_budget');
  if (!back.ok) return DONE; // another copy recorded this attempt meanwhile and carries on
  await toSlowLane(record.body);
  logger.info('webhook delivery moved to the slow lane', { deliveryId: d.id, endpointId: d.endpointId, why });
  return DONE;
}

/** Send the exhausted delivery's message to the DLQ, then clear the flag that says it is owed. */
async function sendToDlq(d: DeliveryItem, msg: DeliveryMessage): Promise<Outcome> {
  const body: DeliveryMessage = { ...messageFor(d), dlq: true };
  await queue().send(new SendMessageCommand({ QueueUrl: config.queueUrl('webhooks-dlq'), MessageBody: JSON.stringify(body) }));
  await clearDlqPending(d.id, msg.seq);
  logger.info('webhook delivery failed for good; message in the DLQ', { deliveryId: d.id, endpointId: d.endpointId, attempts: d.attempts });
  return DONE;
}

async function changeEndpointStatus(ep: EndpointItem, status: 'enabled' | 'disabled', nowIso: string) {
  if (await setEndpointStatus(ep, status, nowIso)) {
    logger.info(status === 'disabled' ? 'webhook endpoint disabled (410 Gone)' : 'webhook endpoint re-enabled', { endpointId: ep.id });
  }
}

/** Make the claimed attempt and record it. */
async function attempt(
  claimed: DeliveryItem,
  ep: EndpointItem,
  ev: EventItem,
  msg: DeliveryMessage,
  sqsRecord: SQSRecord,
  lane: Lane,
): Promise<Outcome> {
  const n = claimed.attempts;
  const startedMs = Date.now();
  const secrets = await signingSecrets(ep, startedMs);
  const cutter = new AbortController();
  const watch = watchAttempt(lane, ep, claimed.id, cutter);
  const body = ev.body ?? eventBody(ev, eventEnvelope(ep.apiVersion));
  const result = await postWebhook({
    url: ep.url,
    body,
    stage: config.stage(),
    abort: cutter.signal,
    headers: attemptHeaders(ev.id, body, secrets, startedMs),
  });
  if ((await watch.settle()).cut) return handOver(claimed, sqsRecord, 'attempt_over_budget');
  const nowMs = Date.now();
  const nowIso = new Date(nowMs).toISOString();
  const status = result.statusCode;
  const ok = status !== null && status >= 200 && status < 300;
  const gone = status === 410;
  const error = result.error ?? (status !== null && status >= 300 && status < 400 ? 'redirect' : gone ? 'endpoint_gone' : null);
  const record: AttemptRecord = {
    attempt: n,
    at: new Date(startedMs).toISOString(),
    statusCode: status,
    error,
    durationMs: result.durationMs,
    ...(result.response ? { response: result.response } : {}),
  };
  logger.info('webhook attempt', {
    deliveryId: claimed.id,
    eventId: ev.id,
    endpointId: ep.id,
    attempt: n,
    statusCode: status ?? undefined,
    error: error ?? undefined,
    durationMs: result.durationMs,
  });

  metric('WebhookAttempts');
  metric('WebhookLatency', result.durationMs);
  if (!ok) metric('WebhookFailures');

  await noteAttemptOutcome(ep, ok, nowIso);
  if (gone) await changeEndpointStatus(ep, 'disabled', nowIso);
  if (ok && ep.status === 'disabled' && claimed.manual) await changeEndpointStatus(ep, 'enabled', nowIso);

  let cur = claimed;
  for (let round = 0; round < 5; round++) {
    const log = appendAttempt(cur.attemptLog, record);
    const superseded = cur.seq !== msg.seq;
    const final = !ok && !gone && !superseded && n >= cur.maxAttempts;
    const delay =
      ok || gone || superseded || final
        ? 0
        : retryDelaySeconds({
            attempt: n,
            baseSeconds: config.webhookBackoffBaseSeconds(),
            statusCode: status ?? undefined,
            retryAfter: result.retryAfter,
            nowMs,
          });
    const nextMs = nowMs + delay * 1000;
    // A wait a message can be delayed for rides a new message of the chain (its token); a longer one the due index.
    const chain = delay <= maxQueueDelaySeconds() ? randomToken(12) : undefined;
    const effect: AttemptEffect = ok
      ? { kind: 'delivered' }
      : gone || final
        ? { kind: 'failed', dlq: final }
        : superseded
          ? { kind: 'superseded' }
          : { kind: 'retry', nextMs, chain };
    const r = await recordAttempt(cur, n, { log, statusCode: status, error, nowIso }, effect);
    if (r.ok) {
      if (ok || gone || superseded) return DONE;
      if (final) return sendToDlq(r.item, msg);
      return chain ? resend(messageFor(r.item, overdueAt(nextMs), chain), delay) : DONE;
    }
    // Another copy of this message recorded this attempt (its POST and ours were the same
    // attempt: at least once), or the delivery is final: nothing to record.
    if (!r.item || r.item.attempts !== n - 1 || r.item.status !== 'pending') return DONE;
    cur = { ...r.item, lastAttemptAt: claimed.lastAttemptAt }; // a replay changed seq/maxAttempts meanwhile: decide again
  }
  return resend(msg, 5);
}
