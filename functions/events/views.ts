/**
 * The events API's read side (DESIGN 8.2) and the delivery lists (DESIGN 6.6, 6.9), both
 * read through receipts (events/receipts.ts): a participant's receipts, one per event
 * addressed to it (a provider: its merchants' too), spread over RECEIPT_SHARDS partitions.
 * A list reads each shard newest first and merges them (`mergedReceipts`), so a page costs
 * about the same whatever the history before its cursor; the events (their `data`, kept 30
 * days) and the participant's own delivery records (the ids its receipt holds) are read per
 * page with BatchGetItem, so counts and statuses are exact whatever replays or retries did.
 *
 * Events written before the event stream (release 2) have no receipt: they stay readable by
 * id (GET /v1/events/{id}, their delivery ids and index keys are on the item) and their
 * deliveries replayable, but are not listed.
 */
import { batchGet, batchGetByKey, getItem, itemKeyOf, queryPage, type Item } from '../platform/table';
import {
  deliveryKey,
  eventIdOfDelivery,
  eventKey,
  unclaimedDelivery,
  type DeliveryItem,
  type DeliveryStatus,
} from '../webhooks/delivery-store';
import { receiptDeliveryIds, receiptKey, receiptPk, RECEIPT_SHARDS, receiptSk, type ReceiptItem } from './receipts';
import { eventEnvelope } from '../webhooks/event-body';

export { EVENT_RETENTION_SECONDS } from './receipts';

export interface EventItem extends Item {
  id: string;
  type: string;
  to: string;
  data: Record<string, unknown>;
  createdAt: string;
  expiresAt?: number;
  /** Release 2 only: the event's deliveries and its index keys (EVENTS#<participant>). */
  deliveryIds?: string[];
  gsi3pk?: string;
  gsi4pk?: string;
}

export interface DeliveryCounts {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

const live = (ev: EventItem | undefined, nowS = Date.now() / 1000): ev is EventItem =>
  ev !== undefined && (ev.expiresAt === undefined || ev.expiresAt > nowS);

/** The event while it is kept (TTL deletion lags: an expired item still there counts as gone). */
export async function getLiveEvent(id: string): Promise<EventItem | undefined> {
  const ev = await getItem<EventItem>(eventKey(id));
  return live(ev) ? ev : undefined;
}

/** What a participant sees of an event: the event and the ids of its own deliveries of it. */
export interface VisibleEvent {
  event: EventItem;
  deliveryIds: string[];
  /** When the stream consumer made those deliveries (the receipt's `dlvAt`). */
  dlvAt?: string;
}

/** A participant's deliveries of one event, as its receipt names them. */
export interface OwedDeliveries {
  eventId: string;
  eventType: string;
  ids: readonly string[];
  /** The receipt's `dlvAt`: a delivery without a record yet is shown made then, pending. */
  dlvAt?: string;
}

const owedOf = (r: ReceiptItem): OwedDeliveries => ({ eventId: r.eventId, eventType: r.type, ids: receiptDeliveryIds(r), dlvAt: r.dlvAt });

/** Release 2's events: the index keys name who may read it; its deliveries are on the item. */
const release2Visible = (participantId: string, event: EventItem): VisibleEvent | undefined => {
  const pk = `EVENTS#${participantId}`;
  return event.gsi3pk === pk || event.gsi4pk === pk ? { event, deliveryIds: event.deliveryIds ?? [] } : undefined;
};

/** An event the participant may read (addressed to it, or to one of its merchants), or undefined. */
export async function getVisibleEvent(participantId: string, id: string): Promise<VisibleEvent | undefined> {
  return (await visibleEvents(participantId, [id]))[0];
}

/**
 * The events among `ids` the participant may read, oldest first: two BatchGetItems (the
 * events, then the participant's receipts of them), whatever their number. Ids of events no
 * longer kept (30 days) or addressed to others are left out.
 */
export async function visibleEvents(participantId: string, ids: readonly string[]): Promise<VisibleEvent[]> {
  if (ids.length === 0) return [];
  const nowS = Date.now() / 1000;
  const events = [...(await batchGet<EventItem>(ids.map(eventKey))).values()].filter((ev) => live(ev, nowS));
  const current = events.filter((ev) => ev.deliveryIds === undefined);
  const receipts = await batchGetByKey<ReceiptItem>(current.map((ev) => receiptKey(participantId, ev)));
  const out: VisibleEvent[] = [];
  for (const event of events) {
    if (event.deliveryIds !== undefined) {
      const v = release2Visible(participantId, event);
      if (v) out.push(v);
      continue;
    }
    const receipt = receipts.get(itemKeyOf(receiptKey(participantId, event)));
    if (receipt) out.push({ event, deliveryIds: receiptDeliveryIds(receipt), dlvAt: receipt.dlvAt });
  }
  // Oldest first, as a receipt's sort key orders them.
  const order = (v: VisibleEvent) => receiptSk(v.event.createdAt, v.event.id);
  return out.sort((a, b) => (order(a) < order(b) ? -1 : 1));
}

/**
 * The participant's own deliveries its receipts name, in id order: each one's record (one
 * BatchGetItem for all), or, for a delivery whose first claim has not made its record yet,
 * the pending delivery its receipt shows (webhooks/delivery-store.ts `unclaimedDelivery`).
 */
export async function deliveriesByIds(participantId: string, owed: readonly OwedDeliveries[]): Promise<DeliveryItem[]> {
  const ids = owed.flatMap((o) => o.ids);
  if (ids.length === 0) return [];
  const found = await batchGet<DeliveryItem>(ids.map(deliveryKey));
  const out: DeliveryItem[] = [];
  for (const o of owed)
    for (const id of o.ids) {
      const d = found.get(deliveryKey(id).pk);
      if (d) {
        if (d.ownerId === participantId) out.push(d);
      } else if (o.dlvAt !== undefined) {
        const u = unclaimedDelivery({ id, eventId: o.eventId, eventType: o.eventType, ownerId: participantId, createdAt: o.dlvAt });
        if (u) out.push(u);
      }
    }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * One of the participant's deliveries by id: its record, or, before its first claim made the
 * record, the pending delivery its receipt shows; undefined when it is not the participant's.
 */
export async function findDelivery(participantId: string, id: string): Promise<DeliveryItem | undefined> {
  const d = await getItem<DeliveryItem>(deliveryKey(id));
  if (d) return d.ownerId === participantId ? d : undefined;
  const eventId = eventIdOfDelivery(id);
  const event = eventId === undefined ? undefined : await getLiveEvent(eventId);
  if (!event) return undefined;
  const receipt = await getItem<ReceiptItem>(receiptKey(participantId, event));
  if (receipt?.dlvAt === undefined || !receiptDeliveryIds(receipt).includes(id)) return undefined;
  return unclaimedDelivery({ id, eventId: receipt.eventId, eventType: receipt.type, ownerId: participantId, createdAt: receipt.dlvAt });
}

/**
 * Events as the events API shows one (GET /v1/events/{id}): the body and the participant's own
 * deliveries of it (one BatchGetItem for all of them).
 */
export async function eventsWithDeliveries(participantId: string, visible: readonly VisibleEvent[], apiVersion: string) {
  const found = new Map(
    (
      await deliveriesByIds(
        participantId,
        visible.map((v) => ({ eventId: v.event.id, eventType: v.event.type, ids: v.deliveryIds, dlvAt: v.dlvAt })),
      )
    ).map((d) => [d.id, d]),
  );
  return visible.map(({ event, deliveryIds }) => ({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    ...eventEnvelope(apiVersion),
    data: event.data,
    deliveries: [...deliveryIds]
      .sort()
      .flatMap((id) => found.get(id) ?? [])
      .map((d) => ({
        id: d.id,
        endpointId: d.endpointId,
        status: d.status,
        attempts: d.attempts,
        lastAttemptAt: d.lastAttemptAt ?? null,
        responseStatus: d.lastStatusCode ?? null,
      })),
  }));
}

/**
 * The events some objects caused, as `participantId` sees them (DESIGN 9.7's transaction page:
 * a billing, its refunds and its disputes): by the ids each keeps (`eventIds`, appended by the
 * transaction that emitted them: events/outbox.ts `recordOn`), read by key with the caller's own
 * deliveries, oldest first. The caller sees what the events API shows it (a bank its events, a
 * merchant or its provider the merchant's); events are kept 30 days.
 */
export async function eventsCausedBy(participantId: string, objects: readonly { eventIds?: readonly string[] }[], apiVersion: string) {
  const ids = new Set(objects.flatMap((o) => o.eventIds ?? []));
  return eventsWithDeliveries(participantId, await visibleEvents(participantId, [...ids]), apiVersion);
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

interface ReceiptRange {
  /** Inclusive bounds on the receipts' sort key (`<createdAt>#<eventId>`); `below` is exclusive. */
  lo?: string;
  hi?: string;
  below?: string;
  type?: string;
}

/** Receipts read per Query of one shard. */
const SHARD_PAGE = 50;

/**
 * A participant's receipts in a range, newest first across its shards: each shard is read a
 * page at a time, only as far as the merge needs.
 */
export async function* mergedReceipts(participantId: string, range: ReceiptRange, firstPage = SHARD_PAGE): AsyncGenerator<ReceiptItem> {
  // `below` is a receipt's own key: read up to it inclusive (a key condition), then drop it.
  const hi = range.below !== undefined && (range.hi === undefined || range.below <= range.hi) ? range.below : range.hi;
  const bounds: Record<string, unknown> = {
    ...(range.lo !== undefined ? { ':lo': range.lo } : {}),
    ...(hi !== undefined ? { ':hi': hi } : {}),
    ...(range.type !== undefined ? { ':type': range.type } : {}),
  };
  const skCondition =
    range.lo !== undefined && hi !== undefined
      ? ' AND #sk BETWEEN :lo AND :hi'
      : hi !== undefined
        ? ' AND #sk <= :hi'
        : range.lo !== undefined
          ? ' AND #sk >= :lo'
          : '';
  const shards = Array.from({ length: RECEIPT_SHARDS }, (_, s) => ({
    pk: receiptPk(participantId, s),
    buffer: [] as ReceiptItem[],
    next: undefined as Record<string, unknown> | undefined,
    done: false,
    reads: 0,
  }));
  const fill = async (sh: (typeof shards)[number]) => {
    while (sh.buffer.length === 0 && !sh.done) {
      const { items, next } = await queryPage(
        {
          KeyConditionExpression: `pk = :pk${skCondition}`,
          ...(range.type !== undefined ? { FilterExpression: '#t = :type' } : {}),
          ExpressionAttributeNames:
            skCondition || range.type !== undefined
              ? { ...(skCondition ? { '#sk': 'sk' } : {}), ...(range.type !== undefined ? { '#t': 'type' } : {}) }
              : undefined,
          ExpressionAttributeValues: { ':pk': sh.pk, ...bounds },
          ScanIndexForward: false,
          Limit: sh.reads === 0 ? firstPage : SHARD_PAGE * 2,
        },
        sh.next,
      );
      sh.reads++;
      sh.buffer.push(...(items as ReceiptItem[]).filter((r) => r.sk !== range.below));
      sh.next = next;
      sh.done = next === undefined;
    }
  };
  for (;;) {
    await Promise.all(shards.map(fill));
    let best: (typeof shards)[number] | undefined;
    for (const sh of shards) if (sh.buffer.length && (!best || sh.buffer[0]!.sk > best.buffer[0]!.sk)) best = sh;
    if (!best) return;
    yield best.buffer.shift()!;
  }
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

/** Upper bound of receipts one list request reads when filters discard most of them. */
export const MAX_SCANNED = 2_000;

/** Receipts worked on per round of reads (their events and deliveries in one BatchGetItem each). */
const CHUNK = 25;

/**
 * One page of the participant's events, newest first, after `after` (an event `startingAfter`
 * names, already checked visible). Time bounds go into the key condition, the type into the
 * filter expression, `deliverySuccess` is applied after reading the deliveries. A filtered
 * request reads at most MAX_SCANNED receipts: rare matches further back than that need a
 * narrower `createdFrom`/`createdTo`.
 */
export async function listEvents(participantId: string, f: EventFilter, limit: number, after?: EventItem): Promise<EventPage> {
  const filtered = f.type !== undefined || f.deliverySuccess !== undefined;
  const receipts = mergedReceipts(
    participantId,
    {
      lo: f.createdFrom,
      // Keys are `<createdAt>#<id>`: every key of an instant t sorts below `t` + '$'.
      hi: f.createdTo ? `${f.createdTo}$` : undefined,
      below: after ? receiptSk(after.createdAt, after.id) : undefined,
      type: f.type,
    },
    filtered ? SHARD_PAGE : Math.min(SHARD_PAGE, limit + 1),
  );
  const found: EventPage['events'] = [];
  let scanned = 0;
  let chunk: ReceiptItem[] = [];
  const flush = async () => {
    const page = chunk;
    chunk = [];
    const [events, deliveries] = await Promise.all([
      batchGet<EventItem>(page.map((r) => eventKey(r.eventId))),
      deliveriesByIds(participantId, page.map(owedOf)),
    ]);
    const nowS = Date.now() / 1000;
    for (const r of page) {
      const event = events.get(eventKey(r.eventId).pk);
      if (!live(event, nowS)) continue;
      const mine = deliveries.filter((d) => d.eventId === r.eventId);
      if (f.deliverySuccess === undefined || matchesDeliverySuccess(countDeliveries(mine), f.deliverySuccess))
        found.push({ event, deliveries: mine });
    }
  };
  for await (const r of receipts) {
    chunk.push(r);
    scanned++;
    if (chunk.length >= (filtered ? CHUNK : limit + 1 - found.length)) await flush();
    if (found.length > limit || (filtered && scanned >= MAX_SCANNED)) break;
  }
  if (chunk.length && found.length <= limit) await flush();
  return { events: found.slice(0, limit), hasMore: found.length > limit };
}

// ---- The delivery lists: a participant's deliveries, newest first (by their event's time) ----

export interface DeliveryFilter {
  status?: DeliveryStatus;
  type?: string;
}

/**
 * The participant's deliveries newest first, from its receipts (newest event first; an
 * event's deliveries by id, descending), read a chunk of records at a time, filtered by
 * status. `below`: start after this delivery (a cursor: the event's receipt key, the id).
 */
async function* mergedDeliveries(
  participantId: string,
  f: DeliveryFilter,
  below?: { sk: string; id: string },
): AsyncGenerator<DeliveryItem> {
  const receipts = mergedReceipts(participantId, { ...(below ? { hi: below.sk } : {}), type: f.type });
  let owed: OwedDeliveries[] = [];
  let count = 0;
  const read = async function* () {
    const page = owed;
    owed = [];
    count = 0;
    const byId = new Map((await deliveriesByIds(participantId, page)).map((d) => [d.id, d]));
    for (const o of page)
      for (const id of o.ids) {
        const d = byId.get(id);
        if (d && (f.status === undefined || d.status === f.status)) yield d;
      }
  };
  for await (const r of receipts) {
    let mine = receiptDeliveryIds(r).reverse();
    if (below && r.sk === below.sk) mine = mine.filter((id) => id < below.id);
    owed.push({ ...owedOf(r), ids: mine });
    count += mine.length;
    if (count >= CHUNK * 4) yield* read();
  }
  if (count) yield* read();
}

export interface DeliveryPage {
  items: DeliveryItem[];
  hasMore: boolean;
  total?: number;
}

/** The release-1 page of a participant's deliveries: matches skip .. skip + limit - 1, and `total` (every match counted). */
export async function deliveriesAt(participantId: string, f: DeliveryFilter, skip: number, limit: number): Promise<DeliveryPage> {
  const items: DeliveryItem[] = [];
  let total = 0;
  if (f.status === undefined) {
    // Counting needs no record: a receipt holds its deliveries' ids.
    const page: OwedDeliveries[] = [];
    for await (const r of mergedReceipts(participantId, { type: f.type })) {
      const ids: string[] = [];
      for (const id of receiptDeliveryIds(r).reverse()) {
        if (total >= skip && total < skip + limit) ids.push(id);
        total++;
      }
      if (ids.length) page.push({ ...owedOf(r), ids });
    }
    const records = new Map((await deliveriesByIds(participantId, page)).map((d) => [d.id, d]));
    for (const id of page.flatMap((o) => o.ids)) if (records.has(id)) items.push(records.get(id)!);
  } else {
    for await (const d of mergedDeliveries(participantId, f)) {
      if (total >= skip && total < skip + limit) items.push(d);
      total++;
    }
  }
  return { items, total, hasMore: skip + items.length < total };
}

/** The page after a delivery of the participant's (`startingAfter`), or undefined when that id is not one of its deliveries. */
export async function deliveriesAfter(
  participantId: string,
  f: DeliveryFilter,
  limit: number,
  afterId: string,
): Promise<DeliveryPage | undefined> {
  const cursor = await findDelivery(participantId, afterId);
  if (!cursor) return undefined;
  const event = await getItem<EventItem>(eventKey(cursor.eventId));
  // An event past its days (its receipts gone with it) leaves nothing after it in the list.
  if (!event) return { items: [], hasMore: false };
  const items: DeliveryItem[] = [];
  for await (const d of mergedDeliveries(participantId, f, { sk: receiptSk(event.createdAt, event.id), id: cursor.id })) {
    items.push(d);
    if (items.length > limit) break;
  }
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}
