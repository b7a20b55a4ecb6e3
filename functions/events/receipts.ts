/**
 * Receipts: what the events API and the delivery lists read (DESIGN 8.2, 9.6). One small item
 * per (participant, event) for every participant an event is addressed to (its `to`, and a
 * merchant's provider), holding the ids of that participant's own deliveries of the event:
 *
 *   pk = EVR#<participant>#<shard>   sk = <createdAt>#<eventId>
 *   { eventId, type, dlv: {delivery ids}, dlvAt, expiresAt: created + 30 days (the table's TTL) }
 *
 * A delivery the stream consumer made has no record until its first claim: until then the
 * receipt is what shows it (pending, made at `dlvAt`: webhooks/delivery-store.ts `unclaimedDelivery`).
 *
 * The stream consumer (events/fanout.ts) writes them once per event (a `webhook.test` event's
 * own transaction writes its own). A participant's receipts are spread over RECEIPT_SHARDS
 * partitions by event id, so a bank billed 500 times a second writes ~60 per second into
 * each (DynamoDB takes 1,000 write units per second per partition; the target is under 100):
 * a list reads every shard and merges them newest first. Pure: keys and shapes only.
 */
import { createHash } from 'node:crypto';

/** Partitions a participant's receipts are spread over (only ever raised: lists read them all). */
export const RECEIPT_SHARDS = 8;

/** How long events stay listable (DESIGN 8.2): 30 days. */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

export const receiptShard = (eventId: string) => createHash('sha1').update(eventId).digest().readUInt32BE(0) % RECEIPT_SHARDS;
/** The prefix of every receipt's partition key. */
export const RECEIPT_PK_PREFIX = 'EVR#';
export const receiptPk = (participantId: string, shard: number) => `${RECEIPT_PK_PREFIX}${participantId}#${shard}`;
/** The participant a receipt's partition key names. */
export const receiptOwner = (pk: string) => pk.slice(RECEIPT_PK_PREFIX.length, pk.lastIndexOf('#'));
export const receiptSk = (createdAt: string, eventId: string) => `${createdAt}#${eventId}`;
export const receiptKey = (participantId: string, ev: { id: string; createdAt: string }) => ({
  pk: receiptPk(participantId, receiptShard(ev.id)),
  sk: receiptSk(ev.createdAt, ev.id),
});

export interface ReceiptItem {
  pk: string;
  sk: string;
  eventId: string;
  type: string;
  /** The participant's deliveries of the event (a string set; absent: none). */
  dlv?: Set<string> | string[];
  /** When the stream consumer made them (absent: their records were made with them). */
  dlvAt?: string;
  expiresAt?: number;
  [extra: string]: unknown;
}

/** The delivery ids of a receipt, in id order. */
export const receiptDeliveryIds = (r: Pick<ReceiptItem, 'dlv'>): string[] => [...(r.dlv ?? [])].sort();
