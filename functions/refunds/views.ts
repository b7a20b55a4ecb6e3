/**
 * Refunds: the item and how it is read and shown (the read side; initiate, processing,
 * completion and failure are store.ts).
 *
 *   REFUND#<refundId> / REFUND
 *     gsi2 MREF#<merchantId> / <createdAt>#<refundId>
 *     due  refund.complete (sandbox only: the simulated bank executes it)
 */
import { toMajor } from '../domain/money';
import { batchGet, getItem, queryAll } from '../platform/table';
import type { BillItem } from '../bills/types';
import { parseItem, type Shape } from '../platform/parse';

export type RefundStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface RefundItem {
  pk: string; // REFUND#<refundId>
  sk: 'REFUND';
  refundId: string;
  reference: string;
  billingRequestId: string;
  /** The events it caused, oldest first (events/outbox.ts `recordOn`). */
  eventIds?: string[];
  merchantId: string;
  providerId?: string;
  bankId: string;
  customerId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: string | null;
  expectedBy: string;
  createdAt: string;
  updatedAt: string;
  processingAt?: string;
  completedAt?: string;
  failedAt?: string;
  failureReason?: string;
  /** Which merchant balance the completed refund was taken from. */
  debitedBalance?: 'unsettled' | 'settled';
  gsi2pk: string; // MREF#<merchantId>
  gsi2sk: string; // <createdAt>#<refundId>
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export const REFUND_COMPLETE_KIND = 'refund.complete';
export const REFUND_UPDATED = 'refund.updated';
export const REFUND_REQUESTED = 'refund.requested';

/** Smallest refund: NGN 0.01 (a partial refund of a few kobo is legitimate; docs/decisions/refunds.md). */
export const MIN_REFUND_MINOR = 1;

export const refundKey = (refundId: string) => ({ pk: `REFUND#${refundId}`, sk: 'REFUND' as const });
/** What the read side relies on in a stored refund (parsed on every read). */
const REFUND_SHAPE: Shape = {
  refundId: 'string',
  reference: 'string',
  billingRequestId: 'string',
  merchantId: 'string',
  bankId: 'string',
  amount: 'number',
  currency: 'string',
  status: ['pending', 'processing', 'completed', 'failed'],
  expectedBy: 'string',
  createdAt: 'string',
  updatedAt: 'string',
};

export const parseRefund = (item: Record<string, unknown> | undefined) => parseItem<RefundItem>('refund', REFUND_SHAPE, item);
export const getRefund = async (refundId: string) => parseRefund(await getItem(refundKey(refundId)));

/** The refund as the API (and `refund.updated`) shows it. */
export function refundView(r: RefundItem) {
  return {
    refundId: r.refundId,
    reference: r.reference,
    amount: toMajor(r.amount),
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    expectedBy: r.expectedBy,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    completedAt: r.completedAt ?? null,
    ...(r.status === 'failed' ? { failureReason: r.failureReason ?? null } : {}),
  };
}

/**
 * A transaction's refunds, newest first: by key from its `refundIds` (one BatchGetItem). A
 * billing refunded before the ids were kept on it (release 3) has none while it holds refunds
 * (claims above its disputes): those are found among its merchant's refunds (gsi2 `MREF#`,
 * filtered by reference; not bounded by the billing's createdAt, which a test clock may have
 * put after a refund's).
 */
export async function refundsOf(
  bill: Pick<BillItem, 'reference' | 'merchantId' | 'createdAt' | 'refundIds' | 'refundReserved' | 'disputedAmount'>,
): Promise<RefundItem[]> {
  let found: RefundItem[];
  if (bill.refundIds && bill.refundIds.size > 0) {
    found = [...(await batchGet<RefundItem>([...bill.refundIds].map(refundKey))).values()];
  } else if ((bill.refundReserved ?? 0) > (bill.disputedAmount ?? 0)) {
    found = await queryAll<RefundItem>({
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: '#ref = :ref',
      ExpressionAttributeNames: { '#ref': 'reference' },
      ExpressionAttributeValues: { ':pk': `MREF#${bill.merchantId}`, ':ref': bill.reference },
    });
  } else return [];
  return found
    .map((r) => parseRefund(r)!)
    .filter((r) => r && r.reference === bill.reference)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}
