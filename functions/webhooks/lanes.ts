/**
 * Fair delivery (DESIGN 8.1; docs/decisions/webhook-fair-delivery.md): two lanes and a
 * per-endpoint cap, so a slow or failing endpoint only slows itself.
 *
 * - Fast lane (`webhooks` queue): every delivery starts here. An attempt that has not been
 *   answered within FAST_LANE_BUDGET_MS must hold one of the endpoint's SLOW_SLOTS slots
 *   (attributes on the endpoint item) to go on waiting, up to the 10 s attempt timeout. Without
 *   a free slot it is cut there: not counted as an attempt, and its message moves to the slow
 *   lane. So one endpoint holds at most SLOW_SLOTS fast-lane consumers for long.
 * - Endpoint health: the first attempt past the budget marks the endpoint slow
 *   (`slowUntil`, epoch ms, SLOW_LANE_SECONDS ahead; renewed while it stays slow). While it is
 *   marked, the fast lane hands its deliveries to the slow lane before any attempt.
 * - Slow lane (`webhooks-slow` queue): the same worker, its own event source with a small
 *   maxConcurrency; attempts there run to the full timeout. Retries, backoff, Retry-After, 410,
 *   the DLQ and replay are the same in both lanes.
 *
 * A fast failure (an instant 500, a refused connection) holds nothing, so it stays in the
 * fast lane: only time spent waiting is what other participants would pay for.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { config } from '../config';
import { queue } from '../platform/clients';
import { markEndpointSlow, releaseEndpointSlot, takeEndpointSlot, type EndpointItem } from './endpoint-store';

export type Lane = 'fast' | 'slow';
export const LANE_QUEUES: Record<Lane, string> = { fast: 'webhooks', slow: 'webhooks-slow' };

/** How long a fast-lane attempt may wait for an answer before it needs a slot. */
export const FAST_LANE_BUDGET_MS = 500;
/** Fast-lane attempts of one endpoint that may wait past the budget at once. */
export const SLOW_SLOTS = 2;
/** How long an endpoint stays in the slow lane after it was last seen slow. */
export const slowLaneSeconds = () => Number(process.env.WEBHOOK_SLOW_LANE_SECONDS || 300);
/** A slot is held at most this long (attempt timeout plus room); a crashed holder's slot expires. */
const SLOT_LEASE_MS = 30_000;

const queueName = (urlOrArn: string) => urlOrArn.split(/[/:]/).pop() ?? '';

/** The lane a record came from: its source queue (the ARN's name), fast unless it is the slow lane's. */
export function laneOf(record: Pick<SQSRecord, 'eventSourceARN'>): Lane {
  let slowUrl: string;
  try {
    slowUrl = config.queueUrl(LANE_QUEUES.slow);
  } catch {
    return 'fast';
  }
  return record.eventSourceARN && queueName(record.eventSourceARN) === queueName(slowUrl) ? 'slow' : 'fast';
}

export const isSlow = (ep: Pick<EndpointItem, 'slowUntil'>, nowMs: number) => typeof ep.slowUntil === 'number' && ep.slowUntil > nowMs;

/** Hand a message to the slow lane as is (same delivery, same chain). */
export async function toSlowLane(body: string): Promise<void> {
  await queue().send(new SendMessageCommand({ QueueUrl: config.queueUrl(LANE_QUEUES.slow), MessageBody: body }));
}

/** Mark the endpoint slow (unless a mark already lasts more than half a window). */
export function markSlow(ep: EndpointItem, nowMs: number): Promise<boolean> {
  const until = nowMs + slowLaneSeconds() * 1000;
  return markEndpointSlow(ep, until, until - (slowLaneSeconds() * 1000) / 2);
}

/**
 * Take one of the endpoint's slots for the attempt of `deliveryId` (free, or its lease over),
 * marking the endpoint slow in the same write. The slot's name, or undefined when all are held.
 */
export async function takeSlot(ep: EndpointItem, deliveryId: string, nowMs: number): Promise<string | undefined> {
  const first = Math.floor(Math.random() * SLOW_SLOTS);
  for (let i = 0; i < SLOW_SLOTS; i++) {
    const slot = `laneSlot${(first + i) % SLOW_SLOTS}`;
    if (await takeEndpointSlot(ep, slot, { deliveryId, until: nowMs + SLOT_LEASE_MS }, nowMs + slowLaneSeconds() * 1000, nowMs))
      return slot;
  }
  return undefined;
}

/**
 * Watch one attempt: at the budget, a fast-lane attempt takes a slot or is cut (`abort`); a
 * slow-lane attempt renews the endpoint's slow mark. `settle()` after the attempt: waits for
 * the watcher, frees the slot, and says whether the attempt was cut.
 */
export function watchAttempt(lane: Lane, ep: EndpointItem, deliveryId: string, abort: AbortController) {
  let slot: string | undefined;
  let cut = false;
  let finished = false;
  let task: Promise<void> | undefined;
  const timer = setTimeout(() => {
    task = (async () => {
      const nowMs = Date.now();
      if (lane === 'slow') {
        await markSlow(ep, nowMs);
        return;
      }
      slot = await takeSlot(ep, deliveryId, nowMs);
      if (!slot && !finished) {
        cut = true;
        abort.abort();
        await markSlow(ep, nowMs);
      }
    })().catch(() => undefined); // health is best effort: the attempt itself goes on
  }, FAST_LANE_BUDGET_MS);
  return {
    async settle(): Promise<{ cut: boolean }> {
      finished = true; // answered already: never cut now
      clearTimeout(timer);
      await task;
      if (slot) await releaseEndpointSlot(ep, slot, deliveryId).catch(() => undefined);
      return { cut };
    },
  };
}
