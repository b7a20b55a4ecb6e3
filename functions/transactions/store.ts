/**
 * Transaction reads (DESIGN 6.9 "Transactions"): a transaction is the billing request item
 * (`BILL#<id>`, bills/types.ts) seen through `toTransaction`. Lists come from the owner
 * indexes the billing flow writes, keys only and sorted by `lsk` = `<createdAt>#<id>`: gsi5
 * `MTXN#<merchantId>`, gsi6 `BTXN#<bankId>#<shard>`, gsi7 `PTXN#<providerId>#<shard>`, plus
 * the partitions billings made before release 3 are in (gsi2 / gsi3 / gsi4, projection ALL,
 * unsharded); each page reads its items by key. A reference names its billing by key
 * (`txn_<id body>`), or, made before release 3, through gsi1 `REF#<reference>` / `BILL`.
 * `settlementId`: the capture's settlement line names its round; the id is shown once that
 * round's record exists (ledger/settlement-views.ts). Stamped on the billing itself only
 * before release 3.
 */
import type { ParticipantKind } from '../routes';
import { toMajor } from '../domain/money';
import { bankTxnKey, billKey, merchantTxnKey, providerTxnKey, type BillItem, type TransactionStatus } from '../bills/types';
import { billingRequestIdOfReference, isBillingRequestIdShaped } from '../billing/bill-item';
import { batchGetByKey, getItem, itemKeyOf, queryAll, type Item } from '../platform/table';
import { indexRange, readRange, shardSources, type ListRange, type ListSource } from '../platform/list-page';
import { captureLineKey, lineSettlementId, settlementKey, type SettlementLine } from '../ledger/settlement-views';

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
  /** Of its disputes, the amount open or lost (DESIGN 9.4); 0 when none. */
  disputedAmount: number;
  /** The status of its latest dispute; null when never disputed. */
  disputeStatus: NonNullable<BillItem['disputeStatus']> | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The transaction as the API shows it (amounts in major units; an allow-list of fields).
 * `settlementId`: the one stamped on a billing settled before release 3, else the one its
 * capture's line carries (`settlementIdsOf`).
 */
export function toTransaction(b: BillItem, settlementId?: string | null): Transaction {
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
    settlementId: b.settlementId ?? settlementId ?? null,
    disputedAmount: toMajor(b.disputedAmount ?? 0),
    disputeStatus: b.disputeStatus ?? null,
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

/**
 * The settlements that paid these billings, by billing request id: the round their capture
 * lines name (one BatchGetItem per 100), shown once that round's record exists (one more
 * BatchGetItem of the few records), for succeeded billings that do not carry the id themselves.
 */
export async function settlementIdsOf(bills: readonly BillItem[]): Promise<Map<string, string>> {
  const wanted = bills.filter((b) => b.status === 'succeeded' && b.settlementDate && !b.settlementId);
  const out = new Map<string, string>();
  if (wanted.length === 0) return out;
  const keys = wanted.map((b) => captureLineKey(b.merchantId, b.settlementDate!, b.createdAt, b.billingRequestId));
  const lines = await batchGetByKey<SettlementLine>(keys, ['merchantId', 'settlementDate', 'stlRound', 'settlementId']);
  const candidates = new Map<string, string>(); // billingRequestId -> settlement id its line names
  wanted.forEach((b, i) => {
    const line = lines.get(itemKeyOf(keys[i]!));
    const id = line ? lineSettlementId(line) : undefined;
    if (id) candidates.set(b.billingRequestId, id);
  });
  if (candidates.size === 0) return out;
  const committed = await batchGetByKey<Item>([...new Set(candidates.values())].map(settlementKey), ['pk']);
  for (const [billingRequestId, id] of candidates) if (committed.has(itemKeyOf(settlementKey(id)))) out.set(billingRequestId, id);
  return out;
}

/** The transactions as the API shows them, with their settlement ids. */
export async function toTransactions(bills: readonly BillItem[]): Promise<Transaction[]> {
  const settled = await settlementIdsOf(bills);
  return bills.map((b) => toTransaction(b, settled.get(b.billingRequestId)));
}

/** One transaction as the API shows it, with its settlement id. */
export const transactionOf = async (b: BillItem): Promise<Transaction> => (await toTransactions([b]))[0]!;

/**
 * The billing request of a reference: by key when the reference has the shape of one made
 * since release 3 (`txn_<id body>`), else through gsi1 (made before). Strongly consistent.
 */
export async function findBillByReference(reference: string): Promise<BillItem | undefined> {
  const byKey = billingRequestIdOfReference(reference);
  if (byKey && isBillingRequestIdShaped(byKey)) {
    const bill = await getItem<BillItem>(billKey(byKey));
    if (bill?.reference === reference) return bill;
  }
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

/** The partitions listing a viewer's transactions: the keys-only index (sharded for banks and providers) and the former one. */
export function transactionScope(viewer: { kind: ParticipantKind; id: string }): ListSource[] {
  switch (viewer.kind) {
    case 'merchant':
      return [
        { index: 'gsi5', pkName: 'gsi5pk', skName: 'lsk', pk: merchantTxnKey(viewer.id) },
        { index: 'gsi2', pkName: 'gsi2pk', skName: 'gsi2sk', pk: merchantTxnKey(viewer.id) },
      ];
    case 'bank':
      return [
        ...shardSources('gsi6', 'gsi6pk', 'lsk', bankTxnKey(viewer.id)),
        { index: 'gsi3', pkName: 'gsi3pk', skName: 'gsi3sk', pk: bankTxnKey(viewer.id) },
      ];
    case 'provider':
      return [
        ...shardSources('gsi7', 'gsi7pk', 'lsk', providerTxnKey(viewer.id)),
        { index: 'gsi4', pkName: 'gsi4pk', skName: 'gsi4sk', pk: providerTxnKey(viewer.id) },
      ];
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
  'disputedAmount',
  'disputeStatus',
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
  const test = (b: Item) => transactionStatus(b as unknown as BillItem) === status;
  if (status === 'refunded') return { expression: '#fra > :fzero AND #fra >= #fam', names, values: { ':fzero': 0 }, test };
  if (status === 'partially_refunded') return { expression: '#fra > :fzero AND #fra < #fam', names, values: { ':fzero': 0 }, test };
  return {
    expression: '#fst = :fst AND (attribute_not_exists(#fra) OR #fra <= :fzero)',
    names: { '#fra': 'refundedAmount', '#fst': 'status' },
    values: { ':fst': status, ':fzero': 0 },
    test,
  };
}

/** The scope's transactions matching the filter, newest first, as a list range (platform/list-page.ts). */
export function transactionRange(scope: ListSource[], filter: TransactionFilter): ListRange {
  const [first, ...more] = scope;
  return {
    ...indexRange(first!.index!, first!.pk, transactionFilter(filter), {
      ...bounds(filter),
      projection: ATTRS,
    }),
    pkName: first!.pkName,
    skName: first!.skName,
    more,
    hydrate: true,
  };
}

/** The status and customer filters together (each as an expression and as the in-memory test a hydrated list runs). */
function transactionFilter(filter: TransactionFilter): ListRange['filter'] {
  const parts = [
    ...(filter.status !== undefined ? [statusFilter(filter.status)] : []),
    ...(filter.customerId !== undefined
      ? [
          {
            expression: '#fcus = :fcus',
            names: { '#fcus': 'customerId' },
            values: { ':fcus': filter.customerId },
            test: (b: Item) => b.customerId === filter.customerId,
          },
        ]
      : []),
  ];
  if (parts.length <= 1) return parts[0];
  return {
    expression: parts.map((p) => `(${p.expression})`).join(' AND '),
    names: Object.assign({}, ...parts.map((p) => p.names)),
    values: Object.assign({}, ...parts.map((p) => p.values)),
    test: (b: Item) => parts.every((p) => p.test!(b)),
  };
}

/**
 * The bill a `startingAfter` names: a billingRequestId or a reference (the list shows both);
 * any owner's (the caller checks it lies in its own list).
 */
export async function billNamed(id: string): Promise<BillItem | undefined> {
  if (isBillingRequestIdShaped(id)) return getItem<BillItem>(billKey(id));
  return findBillByReference(id);
}

/**
 * One page of the scope's transactions between the bounds, newest first, after the sort key
 * `start.after` (`next`: where the following page starts; undefined after the last). The
 * exports walk the range page by page, across runs, without holding it in memory. (A place
 * saved before release 3 is the former index's key: its `gsi2sk` is the same sort key.)
 */
export async function transactionPage(
  scope: ListSource[],
  filter: Pick<TransactionFilter, 'from' | 'to'>,
  start?: Record<string, unknown>,
  pageSize = 1000,
): Promise<{ transactions: Transaction[]; next?: Record<string, unknown> }> {
  const range = transactionRange(scope, filter);
  const after = typeof start?.after === 'string' ? start.after : typeof start?.gsi2sk === 'string' ? start.gsi2sk : undefined;
  const from: ListRange = after === undefined ? range : { ...range, hi: after, exclusive: 'hi' };
  const bills = await readRange<BillItem>(from, pageSize + 1);
  const page = bills.slice(0, pageSize);
  const last = page[page.length - 1];
  const transactions = await toTransactions(page);
  return { transactions, ...(bills.length > pageSize && last ? { next: { after: `${last.createdAt}#${last.billingRequestId}` } } : {}) };
}
