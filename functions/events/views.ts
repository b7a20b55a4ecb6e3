/**
 * The events API's read side (DESIGN 8.2): the events addressed to a participant, newest
 * first, with their delivery counts. The outbox (./outbox.ts) writes each event item with
 *
 *   gsi3pk = EVENTS#<addressee>, gsi3sk = <createdAt>#<eventId>
 *   gsi4pk = EVENTS#<provider>,  gsi4sk = (the same)    for a merchant that has a provider
 *   expiresAt = created + 30 days (the table's TTL attribute, epoch seconds)
 *
 * so a page is one Query on the participant's own partition, from `startingAfter`'s key:
 * its cost does not grow with history. Delivery counts are read from the event's delivery
 * items (one BatchGetItem per page), so they are exact whatever replays or retries did, and
 * no delivery write has to touch the event.
 *
 * A participant sees only its own deliveries of an event: a merchant's event that its
 * provider also received lists the merchant's endpoints to the merchant and the provider's
 * to the provider.
 */
import { batchGet, getItem, queryPage, type Item } from '../platform/table';
import { deliveryKey, eventKey, type DeliveryItem } from '../webhooks/delivery-store';

/** How long events stay listable (DESIGN 8.2): 30 days. */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

export const eventsOwnerPk = (participantId: string) => `EVENTS#${participantId}`;
export const eventsSk = (createdAt: string, id: string) => `${createdAt}#${id}`;

export interface EventItem extends Item {
  id: string;
  type: string;
  to: string;
  data: Record<string, unknown>;
  createdAt: string;
  deliveryIds?: string[];
  gsi3pk?: string;
  gsi4pk?: string;
  expiresAt?: number;
}

export interface DeliveryCounts {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

/** The index a participant's events are on: its own (gsi3) or, for a provider, its merchants' too (gsi4). */
const INDEXES = [
  { name: 'gsi3', pk: 'gsi3pk', sk: 'gsi3sk' },
  { name: 'gsi4', pk: 'gsi4pk', sk: 'gsi4sk' },
] as const;

/** The event while it is kept (TTL deletion lags: an expired item still there counts as gone). */
export async function getLiveEvent(id: string): Promise<EventItem | undefined> {
  const ev = await getItem<EventItem>(eventKey(id));
  return ev && (ev.expiresAt === undefined || ev.expiresAt * 1000 > Date.now()) ? ev : undefined;
}

/** An event the participant may read (addressed to it, or to one of its merchants), or undefined. */
export async function getVisibleEvent(participantId: string, id: string): Promise<EventItem | undefined> {
  const ev = await getLiveEvent(id);
  if (!ev?.gsi3pk) return undefined;
  const pk = eventsOwnerPk(participantId);
  return ev.gsi3pk === pk || ev.gsi4pk === pk ? ev : undefined;
}

/** The participant's own deliveries of each event, by event id. */
export async function deliveriesOf(participantId: string, events: readonly EventItem[]): Promise<Map<string, DeliveryItem[]>> {
  const ids = events.flatMap((e) => e.deliveryIds ?? []);
  const found = ids.length ? await batchGet<DeliveryItem>(ids.map(deliveryKey)) : new Map<string, DeliveryItem>();
  const out = new Map<string, DeliveryItem[]>();
  for (const e of events) {
    const mine = (e.deliveryIds ?? [])
      .map((d) => found.get(deliveryKey(d).pk))
      .filter((d): d is DeliveryItem => d !== undefined && d.ownerId === participantId);
    out.set(e.id, mine);
  }
  return out;
}

export function countDeliveries(deliveries: readonly DeliveryItem[]): DeliveryCounts {
  const c = { total: deliveries.length, succeeded: 0, failed: 0, pending: 0 };
  for (const d of deliveries) {
    if (d.status === 'delivered') c.succeeded++;
    else if (d.status === 'failed') c.failed++;
    else c.pending++;
  }
  return c;
}

/**
 * `deliverySuccess=true`: at least one delivery and all delivered; `false`: at least one
 * delivery failed for good. An event with no delivery, or with deliveries still pending and
 * none failed, matches neither.
 */
export function matchesDeliverySuccess(counts: DeliveryCounts, wanted: boolean): boolean {
  return wanted ? counts.total > 0 && counts.succeeded === counts.total : counts.failed > 0;
}

export interface EventFilter {
  type?: string;
  createdFrom?: string;
  createdTo?: string;
  deliverySuccess?: boolean;
}

export interface EventPage {
  events: { event: EventItem; deliveries: DeliveryItem[] }[];
  hasMore: boolean;
}

/** Items read per Query page. */
const PAGE_READ = 100;
/** Upper bound of items one list request reads per index when filters discard most of them. */
export const MAX_SCANNED = 2_000;

/**
 * One page of the participant's events, newest first, after `after` (the event
 * `startingAfter` names, already checked visible). Time bounds go into the key condition,
 * the type into the filter expression, `deliverySuccess` is applied per Query page after
 * reading that page's deliveries. A filtered request reads at most MAX_SCANNED events per
 * index: rare matches further back than that need a narrower `createdFrom`/`createdTo`.
 */
export async function listEvents(participantId: string, f: EventFilter, limit: number, after?: EventItem): Promise<EventPage> {
  const pk = eventsOwnerPk(participantId);
  const afterKey = after ? eventsSk(after.createdAt, after.id) : undefined;
  const lo = f.createdFrom;
  // Keys are `<createdAt>#<id>`: every key of an instant t sorts below `t` + '$'.
  let hi = f.createdTo ? `${f.createdTo}$` : undefined;
  if (afterKey && (!hi || afterKey < hi)) hi = afterKey;
  const nowS = Date.now() / 1000;
  const perIndex = await Promise.all(
    INDEXES.map(async (ix) => {
      const found: { event: EventItem; deliveries: DeliveryItem[] }[] = [];
      let scanned = 0;
      const range = lo && hi ? ` AND ${ix.sk} BETWEEN :lo AND :hi` : lo ? ` AND ${ix.sk} >= :lo` : hi ? ` AND ${ix.sk} <= :hi` : '';
      const input = {
        IndexName: ix.name,
        KeyConditionExpression: `${ix.pk} = :pk${range}`,
        FilterExpression: f.type ? '#t = :type' : undefined,
        ExpressionAttributeNames: f.type ? { '#t': 'type' } : undefined,
        ExpressionAttributeValues: {
          ':pk': pk,
          ...(lo ? { ':lo': lo } : {}),
          ...(hi ? { ':hi': hi } : {}),
          ...(f.type ? { ':type': f.type } : {}),
        },
        ScanIndexForward: false,
        // Unfiltered, one read of the page (+1 to know whether more follow); filtered, larger reads.
        Limit: f.type || f.deliverySuccess !== undefined ? PAGE_READ : limit + 1,
      };
      let start: Record<string, unknown> | undefined;
      do {
        const { items, next } = await queryPage(input, start);
        start = next;
        scanned += PAGE_READ;
        const page = (items as EventItem[]).filter(
          (e) => (!afterKey || eventsSk(e.createdAt, e.id) < afterKey) && (e.expiresAt === undefined || e.expiresAt > nowS),
        );
        const deliveries = await deliveriesOf(participantId, page);
        for (const event of page) {
          const mine = deliveries.get(event.id) ?? [];
          if (f.deliverySuccess === undefined || matchesDeliverySuccess(countDeliveries(mine), f.deliverySuccess))
            found.push({ event, deliveries: mine });
        }
      } while (start && found.length <= limit && scanned < MAX_SCANNED);
      return found;
    }),
  );
  // Newest first across both indexes (a provider's own events and its merchants').
  const merged = [...new Map(perIndex.flat().map((x) => [x.event.id, x])).values()].sort((a, b) =>
    eventsSk(b.event.createdAt, b.event.id).localeCompare(eventsSk(a.event.createdAt, a.event.id)),
  );
  return { events: merged.slice(0, limit), hasMore: merged.length > limit };
}
