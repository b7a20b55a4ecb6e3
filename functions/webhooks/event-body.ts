/**
 * The body every delivery of an event sends and signs (DESIGN 6.6, 8.2, 10.4): the JSON of
 * `{id, type, createdAt, apiVersion, livemode, data}`, built at delivery time from the stored event item, never
 * stored itself (docs/decisions/event-pipeline-streams.md).
 *
 * The bytes must be the same on every attempt of the event, whoever builds them, while
 * DynamoDB keeps no order among a map's keys: so the keys of every object inside `data` are
 * written in code-point order (the envelope's keys in their fixed order). `apiVersion` is the
 * version the payload is written at (the receiving endpoint's, pinned when it was created: the
 * same on every attempt), `livemode` whether the stage is live.
 */
import { config } from '../config';
import { API_VERSION } from '../platform/api-request';

/** What an event says of itself beside its data (DESIGN 10.4). */
export interface EventEnvelope {
  /** The API version the payload is written at. */
  apiVersion: string;
  /** True in live, false in the sandbox. */
  livemode: boolean;
}

/** The envelope of an event shown or sent at `apiVersion` (absent: an endpoint made before pinning, at the first version). */
export const eventEnvelope = (apiVersion: string | undefined): EventEnvelope => ({
  apiVersion: apiVersion ?? API_VERSION,
  livemode: config.stage() === 'live',
});

/** What a body is built from: the event item's own attributes. */
export interface EventBodySource {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}

/** `value` with every object's keys in code-point order (arrays keep their order). */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  // A Set (a DynamoDB string or number set read back) is written as its sorted members.
  if (value instanceof Set) return [...value].sort().map(ordered);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = ordered(o[k]);
  return out;
}

/** The exact JSON text every delivery of this event sends and signs. */
export function eventBody(ev: EventBodySource, envelope: EventEnvelope): string {
  return JSON.stringify({
    id: ev.id,
    type: ev.type,
    createdAt: ev.createdAt,
    apiVersion: envelope.apiVersion,
    livemode: envelope.livemode,
    data: ordered(ev.data ?? {}),
  });
}
