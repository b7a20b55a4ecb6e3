/**
 * Receipt writes (events/receipts.ts). Writing one is idempotent: the delivery ids are added
 * to a set, so a replayed stream record, or an endpoint subscribed between two runs of one,
 * never loses or doubles an id.
 */
import { db } from '../platform/clients';
import { table, UpdateCommand, type TransactItem } from '../platform/table';
import { receiptKey } from './receipts';

export interface ReceiptSpec {
  participantId: string;
  event: { id: string; type: string; createdAt: string };
  deliveryIds: string[];
  expiresAt: number;
  /**
   * When the stream consumer made these deliveries (their records are made by their first
   * claims): kept once as the receipt's `dlvAt`, the time they were made.
   */
  madeAt?: string;
}

function receiptUpdate(r: ReceiptSpec) {
  const add = r.deliveryIds.length > 0;
  const made = add && r.madeAt !== undefined;
  return {
    TableName: table(),
    Key: receiptKey(r.participantId, r.event),
    UpdateExpression: `SET eventId = :e, #t = :t, expiresAt = :x${made ? ', dlvAt = if_not_exists(dlvAt, :at)' : ''}${add ? ' ADD dlv :d' : ''}`,
    ExpressionAttributeNames: { '#t': 'type' },
    ExpressionAttributeValues: {
      ':e': r.event.id,
      ':t': r.event.type,
      ':x': r.expiresAt,
      ...(made ? { ':at': r.madeAt } : {}),
      ...(add ? { ':d': new Set(r.deliveryIds) } : {}),
    },
  };
}

/**
 * Record (or complete) a participant's receipt of an event. With `madeAt`: the time its
 * deliveries were made, as the receipt keeps it (a replayed stream record finds the first).
 */
export async function recordReceipt(r: ReceiptSpec): Promise<string | undefined> {
  const out = await db().send(new UpdateCommand({ ...receiptUpdate(r), ReturnValues: 'ALL_NEW' }));
  const at = out.Attributes?.dlvAt;
  return typeof at === 'string' ? at : r.madeAt;
}

/** The same, as an item of a transaction (a `webhook.test` event's own). */
export const receiptTransactItem = (r: ReceiptSpec): TransactItem => ({ Update: receiptUpdate(r) });
