/**
 * Transactional outbox (DESIGN 2, event path). Every feature records its state change and
 * the events it causes through `commit`, in ONE DynamoDB transaction; deliveries are then
 * enqueued. Delivery records in the table are the truth; SQS is only transport.
 *
 * NOTE: minimal version (events only). The webhooks issue completes it: receiver
 * resolution (a merchant's provider receives its events too), one delivery record per
 * subscribed endpoint in the same transaction, and the enqueue after commit.
 */
import { newId } from '../domain/ids';
import { nowIso, table, transact, type TransactItem } from '../store/table';

export interface EventSpec {
  /** `<resource>.<change>`, e.g. `billing.intent`, `merchant.trust.updated`. */
  type: string;
  /** The participant the event is for (bank or merchant; a merchant's provider also receives it). */
  to: string;
  data: Record<string, unknown>;
}

export interface CommittedEvent {
  id: string;
  type: string;
  to: string;
  createdAt: string;
}

/** Commit the items and the events atomically. At most 100 items in all (DynamoDB's limit). */
export async function commit(items: TransactItem[], events: EventSpec[]): Promise<CommittedEvent[]> {
  const createdAt = nowIso();
  const committed = events.map((e) => ({ id: newId('evt'), type: e.type, to: e.to, createdAt }));
  const eventItems: TransactItem[] = events.map((e, i) => ({
    Put: {
      TableName: table(),
      Item: {
        pk: `EVT#${committed[i]!.id}`,
        sk: 'EVT',
        id: committed[i]!.id,
        type: e.type,
        to: e.to,
        data: e.data,
        createdAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  }));
  await transact([...items, ...eventItems]);
  return committed;
}
