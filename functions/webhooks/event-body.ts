/**
 * The body every delivery of an event sends and signs (DESIGN 6.6, 8.2): the JSON of
 * `{id, type, createdAt, data}`, built at delivery time from the stored event item, never
 * stored itself (docs/decisions/event-pipeline-streams.md).
 *
 * The bytes must be the same on every attempt of the event, whoever builds them, while
 * DynamoDB keeps no order among a map's keys: so the keys of every object inside `data` are
 * written in code-point order (the envelope's four keys in their fixed order). Pure.
 */

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
export function eventBody(ev: EventBodySource): string {
  return JSON.stringify({ id: ev.id, type: ev.type, createdAt: ev.createdAt, data: ordered(ev.data ?? {}) });
}
