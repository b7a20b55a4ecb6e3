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
}

function receiptUpdate(r: ReceiptSpec) {
  const add = r.deliveryIds.length > 0;
  return {
    TableName: table(),
    Key: receiptKey(r.participantId, r.event),
    UpdateExpression: `SET eventId = :e, #t = :t, expiresAt = :x${add ? ' ADD dlv :d' : ''}`,
    ExpressionAttributeNames: { '#t': 'type' },
    ExpressionAttributeValues: {
      ':e': r.event.id,
      ':t': r.event.type,
      ':x': r.expiresAt,
      ...(add ? { ':d': new Set(r.deliveryIds) } : {}),
    },
  };
}

/** Record (or complete) a participant's receipt of an event. */
export async function recordReceipt(r: ReceiptSpec): Promise<void> {
  await db().send(new UpdateCommand(receiptUpdate(r)));
}

/** The same, as an item of a transaction (a `webhook.test` event's own). */
export const receiptTransactItem = (r: ReceiptSpec): TransactItem => ({ Update: receiptUpdate(r) });
