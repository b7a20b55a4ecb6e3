/**
 * Transaction reads (DESIGN 6.9 "Transactions"): a transaction is the billing request item
 * (`BILL#<id>`, bills/types.ts) seen through `toTransaction`. Lists come from the
 * owner indexes the billing flow writes: gsi2 `MTXN#<merchantId>`, gsi3 `BTXN#<bankId>`,
 * gsi4 `PTXN#<providerId>`, all sorted by `<createdAt>#<billingRequestId>`; a reference is
 * found through gsi1 `REF#<reference>` / `BILL`.
 */
import type { ParticipantKind } from '../routes';
import { toMajor } from '../domain/money';
import { billKey, type BillItem, type TransactionStatus } from '../bills/types';
import { isBillingRequestIdShaped } from '../billing/bill-item';
import { getItem, queryAll, queryPage } from '../platform/table';
import { indexRange, type ListRange } from '../platform/list-page';

export const TRANSACTION_STATUSES = [
  'pending',
  'succeeded',
  'declined',
  'expired',
  'failed',
  'refunded',
  'partially_refunded',
] as const satisfies readonly TransactionStatus[];

/**
 * THE status view of a transaction (pure): `refunded` when refunds completed for the whole
 * amount, `partially_refunded` when for part of it, else the billing status.
 */
export function transactionStatus(b: Pick<BillItem, 'status' | 'amount' | 'refundedAmount'>): TransactionStatus {
  const refunded = b.refundedAmount ?? 0;
  if (refunded > 0 && refunded >= b.amount) return 'refunded';
  if (refunded > 0) return 'partially_refunded';
  return b.status;
}

export interface Transaction {
  reference: string;
  billingRequestId: string;
  type: BillItem['type'];
  status: TransactionStatus;
  amount: number;
  refundedAmount: number;
  currency: string;
  description: string;
  customerId: string;
  entityId: string;
  merchantName: string;
  bankTransactionId: string | null;
  scheduleId: string | null;
  /** The settlement that paid it (DESIGN 8.8); null until settled. */
  settlementId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The transaction as the API shows it (amounts in major units; an allow-list of fields). */
export function toTransaction(b: BillItem): Transaction {
  return {
    reference: b.reference,
    billingRequestId: b.billingRequestId,
    type: b.type,
    status: transactionStatus(b),
    amount: toMajor(b.amount),
    refundedAmount: toMajor(b.refundedAmount ?? 0),
    currency: b.currency,
    description: b.description,
    customerId: b.customerId,
    entityId: b.merchantId,
    merchantName: b.merchantName,
    bankTransactionId: b.bankTransactionId ?? null,
    scheduleId: b.scheduleId ?? null,
    settlementId: b.settlementId ?? null,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
  };
}

/** Who may see a transaction: its merchant, that merchant's provider, the customer's bank. */
export function canSee(viewer: { kind: ParticipantKind; id: string }, b: Pick<BillItem, 'merchantId' | 'providerId' | 'bankId'>): boolean {
  switch (viewer.kind) {
    case 'merchant':
      return b.merchantId === viewer.id;
    case 'provider':
      return b.providerId !== undefined && b.providerId === viewer.id;
    case 'bank':
      return b.bankId === viewer.id;
    default:
      return false;
  }
}

/** The billing request of a reference (strongly consistent item read after the index lookup). */
export async function findBillByReference(reference: string): Promise<BillItem | undefined> {
  const hits = await queryAll<{ billingRequestId?: string; pk: string }>(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': `REF#${reference}`, ':sk': 'BILL' },
      ProjectionExpression: 'pk, billingRequestId',
    },
    1,
  );
  const hit = hits[0];
  if (!hit) return undefined;
  const id = hit.billingRequestId ?? hit.pk.slice('BILL#'.length);
  const bill = await getItem<BillItem>(billKey(id));
  return bill && bill.reference === reference ? bill : undefined;
}

/** The index partition listing a viewer's transactions. */
export function transactionScope(viewer: { kind: ParticipantKind; id: string }): { index: 'gsi2' | 'gsi3' | 'gsi4'; pk: string } {
  switch (viewer.kind) {
    case 'merchant':
      return { index: 'gsi2', pk: `MTXN#${viewer.id}` };
    case 'bank':
      return { index: 'gsi3', pk: `BTXN#${viewer.id}` };
    case 'provider':
      return { index: 'gsi4', pk: `PTXN#${viewer.id}` };
    default:
      throw new Error(`no transaction list for ${viewer.kind}`);
  }
}

export interface TransactionFilter {
  status?: TransactionStatus;
  /** One customer's transactions (the dashboard's customer and decision pages). */
  customerId?: string;
  /** Inclusive bounds on createdAt (ISO instants, any offset). */
  from?: Date;
  to?: Date;
}

/** The fields of a transaction as the API shows it, in order (the exports' CSV columns too). */
export const TRANSACTION_FIELDS = [
  'reference',
  'billingRequestId',
  'type',
  'status',
  'amount',
  'refundedAmount',
  'currency',
  'description',
  'customerId',
  'entityId',
  'merchantName',
  'bankTransactionId',
  'scheduleId',
  'settlementId',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof Transaction)[];

/** The item attributes `toTransaction` and `canSee` read (the projection of the list queries). */
const ATTRS = [...new Set(['pk', 'merchantId', 'providerId', 'bankId', ...TRANSACTION_FIELDS.filter((f) => f !== 'entityId')])];

/** The sort key bounds of a createdAt range (every key of an instant t is `<t>#<id>`; `<to>#~` is above all of them). */
function bounds(filter: Pick<TransactionFilter, 'from' | 'to'>): { lo?: string; hi?: string } {
  return {
    ...(filter.from ? { lo: filter.from.toISOString() } : {}),
    ...(filter.to ? { hi: `${filter.to.toISOString()}#~` } : {}),
  };
}

/**
 * `transactionStatus` as a FilterExpression (the status is derived, so it cannot be a key
 * condition): refunds decide first, then the billing status. Kept beside `transactionStatus`;
 * the integration tests list each status both ways.
 */
export function statusFilter(status: TransactionStatus): NonNullable<ListRange['filter']> {
  const names = { '#fra': 'refundedAmount', '#fam': 'amount' };
  if (status === 'refunded') return { expression: '#fra > :fzero AND #fra >= #fam', names, values: { ':fzero': 0 } };
  if (status === 'partially_refunded') return { expression: '#fra > :fzero AND #fra < #fam', names, values: { ':fzero': 0 } };
  return {
    expression: '#fst = :fst AND (attribute_not_exists(#fra) OR #fra <= :fzero)',
    names: { '#fra': 'refundedAmount', '#fst': 'status' },
    values: { ':fst': status, ':fzero': 0 },
  };
}

/** The scope's transactions matching the filter, newest first, as a list range (platform/list-page.ts). */
export function transactionRange(scope: { index: 'gsi2' | 'gsi3' | 'gsi4'; pk: string }, filter: TransactionFilter): ListRange {
  const parts = [
    ...(filter.status !== undefined ? [statusFilter(filter.status)] : []),
    ...(filter.customerId !== undefined
      ? [{ expression: '#fcus = :fcus', names: { '#fcus': 'customerId' }, values: { ':fcus': filter.customerId } }]
      : []),
  ];
  const combined = parts.length
    ? {
        expression: parts.map((p) => `(${p.expression})`).join(' AND '),
        names: Object.assign({}, ...parts.map((p) => p.names)),
        values: Object.assign({}, ...parts.map((p) => p.values)),
      }
    : undefined;
  return indexRange(scope.index, scope.pk, combined, {
    ...bounds(filter),
    projection: ATTRS,
  });
}

/**
 * The bill a `startingAfter` names: a billingRequestId or a reference (the list shows both);
 * any owner's (the caller checks it lies in its own list).
 */
export async function billNamed(id: string): Promise<BillItem | undefined> {
  if (isBillingRequestIdShaped(id)) return getItem<BillItem>(billKey(id));
  return findBillByReference(id);
}

/** The Query of a scope's transactions between the filter's bounds, newest first (key conditions on `<createdAt>#<id>`). */
function rangeQuery(scope: { index: 'gsi2' | 'gsi3' | 'gsi4'; pk: string }, filter: Pick<TransactionFilter, 'from' | 'to'>) {
  const pkName = `${scope.index}pk`;
  const skName = `${scope.index}sk`;
  const values: Record<string, unknown> = { ':pk': scope.pk };
  let key = '#pk = :pk';
  const { lo, hi } = bounds(filter);
  if (lo !== undefined && hi !== undefined) {
    key += ' AND #sk BETWEEN :lo AND :hi';
    Object.assign(values, { ':lo': lo, ':hi': hi });
  } else if (lo !== undefined) {
    key += ' AND #sk >= :lo';
    values[':lo'] = lo;
  } else if (hi !== undefined) {
    key += ' AND #sk <= :hi';
    values[':hi'] = hi;
  }
  const names: Record<string, string> = { '#pk': pkName, ...(lo !== undefined || hi !== undefined ? { '#sk': skName } : {}) };
  ATTRS.forEach((a, i) => {
    names[`#a${i}`] = a;
  });
  return {
    IndexName: scope.index,
    KeyConditionExpression: key,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ProjectionExpression: ATTRS.map((_, i) => `#a${i}`).join(', '),
    ScanIndexForward: false,
  };
}

/**
 * One Query page of the scope's transactions between the bounds, newest first, from `start`
 * (`next`: where the following page starts; undefined after the last). The exports walk the
 * range page by page, across runs, without holding it in memory.
 */
export async function transactionPage(
  scope: { index: 'gsi2' | 'gsi3' | 'gsi4'; pk: string },
  filter: Pick<TransactionFilter, 'from' | 'to'>,
  start?: Record<string, unknown>,
  pageSize = 1000,
): Promise<{ transactions: Transaction[]; next?: Record<string, unknown> }> {
  const { items, next } = await queryPage({ ...rangeQuery(scope, filter), Limit: pageSize }, start);
  return { transactions: (items as BillItem[]).map(toTransaction), ...(next ? { next } : {}) };
}
