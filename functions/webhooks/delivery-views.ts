/**
 * One delivery as `GET /v1/webhooks/deliveries/{id}` shows it (DESIGN 9.3): the record, the
 * endpoint it went to, and each kept attempt with its request and the receiver's answer.
 *
 * Nothing per attempt is stored but what the receiver answered (docs/decisions/delivery-attempts.md):
 * the request is rebuilt here from the event item (the same bytes on every attempt,
 * webhooks/event-body.ts) and the attempt's time (the signing headers' timestamp), with the
 * signatures shown as `<redacted>`; bodies are cut at 4 KB.
 */
import { getItem } from '../platform/table';
import { type AttemptRecord, type DeliveryItem, eventKey } from './delivery-store';
import { getEndpoint } from './endpoint-store';
import { eventBody, eventEnvelope, type EventBodySource } from './event-body';
import { attemptHeaders } from './signing';
import { cutUtf8 } from './transport';

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
    // A record no attempt has touched yet is due at once: when it was made.
    nextAttemptAt: d.status === 'pending' ? (d.nextAttemptAt ?? d.createdAt) : null,
    createdAt: d.createdAt,
    attemptHistory: (d.attemptLog ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.at,
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
    })),
  };
}

interface StoredEvent extends EventBodySource {
  body?: string;
  [extra: string]: unknown;
}

export interface AttemptView {
  attempt: number;
  at: string;
  durationMs: number;
  request: { headers: Record<string, string>; body: string } | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
}

/** An attempt as shown: the request rebuilt (null once the event is gone), the answer as kept. */
export function attemptView(a: AttemptRecord, eventId: string, body: string | null): AttemptView {
  const atMs = Date.parse(a.at);
  return {
    attempt: a.attempt,
    at: a.at,
    durationMs: a.durationMs,
    request: body === null ? null : { headers: attemptHeaders(eventId, body, null, atMs), body: cutUtf8(body) },
    response: a.statusCode === null ? null : { status: a.statusCode, headers: a.response?.headers ?? {}, body: a.response?.body ?? '' },
    error: a.error,
  };
}

/**
 * A delivery of the caller's (found by events/views.ts `findDelivery`) with its attempts, or
 * undefined once it is past its 30 days.
 */
export async function deliveryDetail(d: DeliveryItem) {
  if (typeof d.expiresAt === 'number' && d.expiresAt <= Date.now() / 1000) return undefined; // TTL deletion lags
  const [ep, ev] = await Promise.all([getEndpoint(d.ownerId, d.endpointId), getItem<StoredEvent>(eventKey(d.eventId))]);
  const body = ev ? (ev.body ?? eventBody(ev, eventEnvelope(ep?.apiVersion))) : null;
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.eventType,
    endpointId: d.endpointId,
    url: ep?.url ?? null,
    status: d.status,
    createdAt: d.createdAt,
    attempts: (d.attemptLog ?? []).map((a) => attemptView(a, d.eventId, body)),
  };
}
