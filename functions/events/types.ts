/**
 * The event types the service emits: the one list (endpoint subscriptions are validated
 * against it, docs/webhooks.md documents each payload). Names are `<resource>.<change>`.
 */
export const EVENT_TYPES = [
  'billing.intent',
  'billing.request',
  'billing.intent.response',
  'billing.response',
  'billing.upcoming',
  'merchant.trust.updated',
  'merchant.discovery_limited',
  'schedule.created',
  'schedule.paused',
  'schedule.resumed',
  'schedule.cancelled',
  'schedule.completed',
  'schedule.run_failed',
  'schedule.run_skipped',
  'schedule.amended',
  'schedule.amendment_declined',
  'refund.requested',
  'refund.updated',
  'settlement.completed',
  'dispute.created',
  'dispute.updated',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Subscribes an endpoint to every event type, present and future. */
export const ALL_EVENTS = '*';

/** Values accepted in an endpoint's `events` list. */
export const SUBSCRIBABLE = [ALL_EVENTS, ...EVENT_TYPES] as const;

export function isEventType(t: string): t is EventType {
  return (EVENT_TYPES as readonly string[]).includes(t);
}

/** Whether an endpoint subscribed to `events` receives an event of `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}
