/**
 * Disputes (DESIGN 9.4; docs/decisions/disputes.md): the item, its keys, reads, lists and
 * API shapes. Writes (open, respond, accept, resolve, expire) are store.ts.
 *
 *   DISPUTE#<disputeId> / DISPUTE
 *     gsi2 MDSP#<merchantId> / <createdAt>#<disputeId>   (the merchant's list; a provider with X-Entity-Id)
 *     gsi3 BDSP#<bankId> / <createdAt>#<disputeId>       (the bank's list)
 *     due  dispute.expiry at respondBy while needs_response
 */
import { toMajor } from '../domain/money';
import { messages } from '../platform/errors';
import { equalsFilter, indexRange, type ListRange } from '../platform/list-page';
import { parseItem, type Shape } from '../platform/parse';
import { batchGet, getItem, type Item } from '../platform/table';
import type { BillItem } from '../bills/types';
import { listPage, pagingOf } from '../http/paging';

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DISPUTE_REASONS = ['unauthorized', 'not_received', 'duplicate', 'amount_incorrect', 'cancelled_recurring', 'other'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];
/** Who made a change: the merchant (respond, accept), the bank (open, resolve), the service (expiry). */
export type DisputeActor = 'merchant' | 'bank' | 'system';

export const DISPUTE_CREATED = 'dispute.created';
export const DISPUTE_UPDATED = 'dispute.updated';
export const DISPUTE_EXPIRY_KIND = 'dispute.expiry';
/** A debit older than this cannot be disputed (DESIGN 9.4). */
export const DISPUTE_WINDOW_DAYS = 120;
export const MAX_EVIDENCE_CHARS = 5000;

/** Client-facing messages of the dispute routes (exact texts; DESIGN 9.4). */
export const DISPUTE_MSG = messages({
  opened: 'Dispute opened',
  retrieved: 'Dispute retrieved',
  listed: 'Disputes retrieved',
  updated: 'Dispute updated',
  notFound: [404, 'dispute_not_found', 'Dispute not found'],
  transactionNotFound: [404, 'transaction_not_found', 'Transaction not found'],
  tooLate: [400, 'dispute_window_passed', 'Transaction can no longer be disputed'],
  exceeds: [400, 'dispute_exceeds_disputable', 'Dispute amount exceeds the disputable amount', { param: 'amount' }],
  /** The transaction is not succeeded (pending, declined, expired, failed): nothing was paid. */
  notDisputable: [409, 'transaction_not_disputable', 'Only a succeeded transaction can be disputed'],
  closed: [409, 'dispute_closed', 'Dispute is closed'],
  /** respond / accept on a dispute the merchant already answered (under review). */
  answered: [409, 'dispute_answered', 'Dispute has already been answered'],
  busy: [409, 'dispute_contention', 'Too many concurrent changes to this transaction; retry shortly', { retry: true }],
});

export interface DisputeItem {
  pk: string; // DISPUTE#<disputeId>
  sk: 'DISPUTE';
  disputeId: string;
  reference: string;
  billingRequestId: string;
  /** The events it caused, oldest first (events/outbox.ts `recordOn`). */
  eventIds?: string[];
  merchantId: string;
  merchantName: string;
  providerId?: string;
  bankId: string;
  customerId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  reason: DisputeReason;
  status: DisputeStatus;
  respondBy: string;
  evidence?: { text: string; submittedAt: string };
  createdAt: string;
  updatedAt: string;
  closedAt?: string;
  closedBy?: DisputeActor;
  /** Sandbox: the test clock the disputed billing was created on. */
  testClock?: string;
  gsi2pk: string;
  gsi2sk: string;
  gsi3pk: string;
  gsi3sk: string;
  duePk?: string;
  dueSk?: string;
  [extra: string]: unknown;
}

export const disputeKey = (disputeId: string) => ({ pk: `DISPUTE#${disputeId}`, sk: 'DISPUTE' as const });
export const merchantDisputesPk = (merchantId: string) => `MDSP#${merchantId}`;
export const bankDisputesPk = (bankId: string) => `BDSP#${bankId}`;
export const isOpen = (s: DisputeStatus) => s === 'needs_response' || s === 'under_review';

const DISPUTE_SHAPE: Shape = {
  disputeId: 'string',
  reference: 'string',
  billingRequestId: 'string',
  merchantId: 'string',
  bankId: 'string',
  amount: 'number',
  currency: 'string',
  status: [...DISPUTE_STATUSES],
  reason: [...DISPUTE_REASONS],
  respondBy: 'string',
  createdAt: 'string',
  updatedAt: 'string',
};

export const parseDispute = (item: Record<string, unknown> | undefined) => parseItem<DisputeItem>('dispute', DISPUTE_SHAPE, item);

/** A dispute by id (strongly consistent); undefined for an id that cannot be one. */
export async function getDispute(disputeId: string): Promise<DisputeItem | undefined> {
  if (!isDisputeIdShaped(disputeId)) return undefined;
  return parseDispute(await getItem(disputeKey(disputeId), true));
}

/**
 * A transaction's disputes, newest first: by the ids its billing keeps (`disputeIds`), or its
 * latest only when it was disputed before it kept them. One BatchGetItem.
 */
export async function disputesOf(bill: Pick<BillItem, 'reference' | 'disputeIds' | 'latestDisputeId'>): Promise<DisputeItem[]> {
  const ids = new Set([...(bill.disputeIds ?? []), ...(bill.latestDisputeId ? [bill.latestDisputeId] : [])]);
  if (ids.size === 0) return [];
  return [...(await batchGet([...ids].map(disputeKey))).values()]
    .map((it) => parseDispute(it)!)
    .filter((d) => d.reference === bill.reference)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
}

export const isDisputeIdShaped = (id: string) => /^dsp_[A-Za-z0-9]{1,60}$/.test(id);

/** Who may see a dispute: its merchant (a provider through X-Entity-Id acts as it) or the customer's bank. */
export function disputeFor(d: DisputeItem | undefined, viewer: { kind: string; id: string }): DisputeItem | undefined {
  if (!d) return undefined;
  if (viewer.kind === 'merchant') return d.merchantId === viewer.id ? d : undefined;
  if (viewer.kind === 'bank') return d.bankId === viewer.id ? d : undefined;
  return undefined;
}

/** The dispute as the API shows it. */
export function disputeView(d: DisputeItem) {
  return {
    disputeId: d.disputeId,
    reference: d.reference,
    billingRequestId: d.billingRequestId,
    entityId: d.merchantId,
    merchantName: d.merchantName,
    customerId: d.customerId,
    amount: toMajor(d.amount),
    currency: d.currency,
    reason: d.reason,
    status: d.status,
    respondBy: d.respondBy,
    evidence: d.evidence ?? null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    closedAt: d.closedAt ?? null,
    closedBy: d.closedBy ?? null,
  };
}

/** `dispute.created` / `dispute.updated` data: the view without the evidence text (it stays in the API). */
export function disputeEventData(d: DisputeItem, actor: DisputeActor) {
  const { evidence, ...rest } = disputeView(d);
  return { ...rest, evidenceSubmittedAt: evidence?.submittedAt ?? null, actor };
}

/** A merchant's or a bank's disputes, newest first, optionally of one status or one transaction (its page). */
export function disputeRange(
  owner: { merchantId: string } | { bankId: string },
  filter: { status?: DisputeStatus; reference?: string } = {},
): ListRange {
  const byMerchant = 'merchantId' in owner;
  return indexRange(
    byMerchant ? 'gsi2' : 'gsi3',
    byMerchant ? merchantDisputesPk(owner.merchantId) : bankDisputesPk(owner.bankId),
    equalsFilter({ status: filter.status, reference: filter.reference }),
  );
}

/** The stored item of a dispute id (a list cursor; the pager checks it lies in the caller's list). */
export const disputeItemNamed = (id: string) => (isDisputeIdShaped(id) ? getItem(disputeKey(id)) : Promise.resolve(undefined));

/** A page of a merchant's or a bank's disputes as the API answers it: `{disputes, hasMore}`. */
export async function disputeList(
  owner: { merchantId: string } | { bankId: string },
  query: { status?: DisputeStatus; reference?: string; limit: number; startingAfter?: string },
) {
  const page = await listPage<Item>(disputeRange(owner, query), pagingOf(query), disputeItemNamed, 'one of your disputes');
  return { disputes: page.items.map((it) => disputeView(parseDispute(it)!)), hasMore: page.hasMore };
}
