/**
 * Search (DESIGN 9.3; docs/decisions/search.md): what the caller may read among the things `q`
 * names exactly. Every lookup is a key read or an index Query, never a Scan:
 *
 * - an id: its prefix says where it lives (`txn_` the reference index gsi1 `REF#`, `breq_`
 *   `BILL#`, `rfd_` `REFUND#`, `sch_` `SCHED#`, `cus_` `CUS#`, `dec_` `DEC#`, `evt_` the event
 *   and the caller's receipt, `dlv_` `WHDL#`, `stl_` `STL#`, `exp_` `EXP#`): one GetItem;
 * - an e-mail: the customers' e-mail index (gsi1 `EMAIL#<email>`), then only the customers the
 *   caller may see: a bank's own; for a merchant those with a decision for it (the decision id
 *   is derived from the pair: one BatchGetItem), for a provider those with a decision for one
 *   of its merchants;
 * - a bank's `clientRef`: its uniqueness guard `UNIQ#CREF#<bankId>#<clientRef>`.
 *
 * And by what people type (DESIGN 10.7: `byText`): the start of an id (6 characters or more), a
 * transaction's or schedule's description words, an exact amount. No index is written for it
 * (the billing path keeps its writes): the caller's own lists are read newest first over the
 * last 90 days, stopping at 20 results or 2 s (`complete: false` then).
 *
 * Visibility is the reads' own rule: a transaction, billing request or refund by `canSee`; a
 * merchant's things (schedules, decisions, settlements, exports) to the merchant and its
 * provider; a bank's customers, decisions and schedules to the bank; events and deliveries to
 * their receiver. Anything else is left out (never a 404: the answer is the list).
 */
import type { BillItem } from '../bills/types';
import { billKey } from '../bills/types';
import { clientRefGuardKey, customerKey, emailIndexPk, type CustomerRecord } from '../customers/views';
import { decisionId, decisionKey, getDecision, type DecisionItem } from '../decisions/views';
import { toMajor } from '../domain/money';
import { disputeFor, getDispute } from '../disputes/views';
import { findDelivery, getVisibleEvent } from '../events/views';
import { getExport } from '../exports/views';
import type { Principal } from '../http/types';
import { getParticipant } from '../identity/participant-store';
import { getSettlement } from '../ledger/settlement-views';
import { providerMerchantsPk } from '../merchants/store';
import { batchGet, getItem, queryAll, type Item } from '../platform/table';
import { getSchedule, parseSchedule, scheduleItemNamed, scheduleRange, type ScheduleItem } from '../recurring/views';
import { getRefund } from '../refunds/views';
import { billNamed, canSee, findBillByReference, transactionRange, transactionScope } from '../transactions/store';
import { cursorPage } from '../http/paging';
import type { ListRange } from '../platform/list-page';

export const SEARCH_KINDS = [
  'transaction',
  'billing_request',
  'refund',
  'schedule',
  'customer',
  'decision',
  'event',
  'delivery',
  'settlement',
  'export',
  'dispute',
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchResult {
  kind: SearchKind;
  id: string;
  title: string;
  createdAt: string;
}

/** At most this many results (DESIGN 9.3). */
export const MAX_RESULTS = 20;
/** A provider's merchants a customer e-mail is checked against (its newest first). */
const PROVIDER_MERCHANTS_CHECKED = 500;

type Viewer = Pick<Principal, 'kind' | 'id'>;
type Customer = CustomerRecord & Item;

const naira = (minor: number) => `NGN ${toMajor(minor).toFixed(2)}`;
const customerTitle = (c: Pick<CustomerRecord, 'firstname' | 'lastname' | 'email'>) => `${c.firstname} ${c.lastname} <${c.email}>`;

/** Whether the viewer may read a merchant's own things: the merchant itself, or its provider. */
async function readsMerchant(viewer: Viewer, merchantId: string): Promise<boolean> {
  if (viewer.kind === 'merchant') return merchantId === viewer.id;
  if (viewer.kind !== 'provider') return false;
  const m = await getParticipant(merchantId);
  return m?.providerId === viewer.id;
}

const billResult = (b: BillItem, kind: 'transaction' | 'billing_request'): SearchResult => ({
  kind,
  id: kind === 'transaction' ? b.reference : b.billingRequestId,
  title: `${naira(b.amount)} · ${b.description || b.merchantName} · ${b.status}`,
  createdAt: b.createdAt,
});

const scheduleResult = (s: ScheduleItem): SearchResult => ({
  kind: 'schedule',
  id: s.scheduleId,
  title: `${naira(s.amount)} ${s.frequency} · ${s.description ?? s.clientRef ?? s.scheduleId} · ${s.status}`,
  createdAt: s.createdAt,
});

async function decisionResult(viewer: Viewer, d: DecisionItem | undefined): Promise<SearchResult | undefined> {
  if (!d) return undefined;
  const visible = viewer.kind === 'bank' ? d.bankId === viewer.id : await readsMerchant(viewer, d.merchantId);
  if (!visible) return undefined;
  const c = await getItem<Customer>(customerKey(d.customerId));
  return {
    kind: 'decision',
    id: d.id,
    title: `${d.decision} · ${c ? customerTitle(c) : d.customerId}`,
    createdAt: d.createdAt,
  };
}

/** The thing an id names, when the viewer may read it. */
async function byId(viewer: Viewer, q: string): Promise<SearchResult[]> {
  const prefix = q.slice(0, q.indexOf('_'));
  switch (prefix) {
    case 'txn': {
      const b = await findBillByReference(q);
      return b && canSee(viewer, b) ? [billResult(b, 'transaction')] : [];
    }
    case 'breq': {
      const b = await getItem<BillItem>(billKey(q));
      return b && canSee(viewer, b) ? [billResult(b, 'billing_request')] : [];
    }
    case 'rfd': {
      const r = await getRefund(q);
      if (!r || !canSee(viewer, r)) return [];
      return [
        { kind: 'refund', id: r.refundId, title: `${naira(r.amount)} refund of ${r.reference} · ${r.status}`, createdAt: r.createdAt },
      ];
    }
    case 'sch': {
      const s = await getSchedule(q);
      if (!s) return [];
      const visible = viewer.kind === 'bank' ? s.bankId === viewer.id : await readsMerchant(viewer, s.merchantId);
      return visible ? [scheduleResult(s)] : [];
    }
    case 'cus': {
      const c = await getItem<Customer>(customerKey(q));
      return c && c.type === 'customer' ? visibleCustomers(viewer, [c]) : [];
    }
    case 'dec': {
      const r = await decisionResult(viewer, await getDecision(q));
      return r ? [r] : [];
    }
    case 'evt': {
      const v = await getVisibleEvent(viewer.id, q);
      return v ? [{ kind: 'event', id: v.event.id, title: v.event.type, createdAt: v.event.createdAt }] : [];
    }
    case 'dlv': {
      const d = await findDelivery(viewer.id, q);
      if (!d) return [];
      return [{ kind: 'delivery', id: d.id, title: `${d.eventType} to ${d.endpointId} · ${d.status}`, createdAt: d.createdAt }];
    }
    case 'stl': {
      const s = await getSettlement(q);
      if (!s || !(await readsMerchant(viewer, s.merchantId))) return [];
      return [
        { kind: 'settlement', id: s.settlementId, title: `${naira(s.amount)} settled for ${s.businessDate}`, createdAt: s.settledAt },
      ];
    }
    case 'exp': {
      const e = await getExport(q);
      if (!e || !(await readsMerchant(viewer, e.merchantId))) return [];
      const what = e.kind === 'settlement' ? `settlement ${e.settlementId}` : `transactions ${e.from ?? '…'} to ${e.to ?? '…'}`;
      return [{ kind: 'export', id: e.exportId, title: `Export of ${what} · ${e.status}`, createdAt: e.createdAt }];
    }
    case 'dsp': {
      const d = disputeFor(await getDispute(q), viewer);
      if (!d) return [];
      return [
        {
          kind: 'dispute',
          id: d.disputeId,
          title: `${naira(d.amount)} ${d.reason} dispute of ${d.reference} · ${d.status}`,
          createdAt: d.createdAt,
        },
      ];
    }
    default:
      return [];
  }
}

/**
 * The customers among `found` the viewer may see, each with the viewer's decision for it (a
 * merchant or provider sees a customer through a decision for itself or one of its merchants).
 */
async function visibleCustomers(viewer: Viewer, found: CustomerRecord[]): Promise<SearchResult[]> {
  const customer = (c: CustomerRecord): SearchResult => ({ kind: 'customer', id: c.id, title: customerTitle(c), createdAt: c.createdAt });
  if (viewer.kind === 'bank') return found.filter((c) => c.bankId === viewer.id).map(customer);
  let merchants: string[] = [];
  if (viewer.kind === 'merchant') merchants = [viewer.id];
  else if (viewer.kind === 'provider') {
    const rows = await queryAll<{ id?: string; pk: string }>(
      {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': providerMerchantsPk(viewer.id) },
        ProjectionExpression: 'pk',
        ScanIndexForward: false,
      },
      PROVIDER_MERCHANTS_CHECKED,
    );
    merchants = rows.map((r) => r.pk.slice('PART#'.length));
  }
  if (merchants.length === 0 || found.length === 0) return [];
  const keys = found.flatMap((c) => merchants.map((m) => decisionKey(decisionId(m, c.id))));
  const decisions = [...(await batchGet<DecisionItem>(keys)).values()];
  const results: SearchResult[] = [];
  for (const c of found) {
    const mine = decisions.filter((d) => d.customerId === c.id && merchants.includes(d.merchantId));
    if (mine.length === 0) continue;
    results.push(customer(c));
    for (const d of mine)
      results.push({ kind: 'decision', id: d.id, title: `${d.decision} · ${customerTitle(c)}`, createdAt: d.createdAt });
  }
  return results;
}

async function byEmail(viewer: Viewer, email: string): Promise<SearchResult[]> {
  const found = await queryAll<Customer>(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': emailIndexPk(email) },
      ScanIndexForward: false,
    },
    100,
  );
  return visibleCustomers(
    viewer,
    found.filter((c) => c.type === 'customer'),
  );
}

async function byClientRef(viewer: Viewer, clientRef: string): Promise<SearchResult[]> {
  if (viewer.kind !== 'bank') return [];
  const guard = await getItem<{ customerId?: string }>(clientRefGuardKey(viewer.id, clientRef));
  if (!guard?.customerId) return [];
  const c = await getItem<Customer>(customerKey(guard.customerId));
  return c && c.type === 'customer' ? visibleCustomers(viewer, [c]) : [];
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;
const ID_SHAPE = /^[a-z]{2,5}_[0-9A-Za-z_-]{1,120}$/;

/** How far back, and for how long, `byText` reads the caller's lists (DESIGN 10.7). */
export const TEXT_SEARCH_DAYS = 90;
export const TEXT_SEARCH_MS = 2_000;
const TEXT_PAGE = 100;
/** The start of an id worth looking for (DESIGN 10.7: 6 characters or more). */
const ID_START = /^[a-z]{2,5}_[0-9A-Za-z]*$/;
/** An exact amount as people write it: `2500`, `2,500.00`, `2500.5`. */
const AMOUNT = /^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/;

/** What `q` asks of a transaction or schedule: its amount (minor units), the start of its ids, or words of its description. */
export function textMatcher(q: string): (x: { ids: string[]; amount: number; description?: string | null }) => boolean {
  const minor = AMOUNT.test(q) ? Math.round(Number(q.replace(/,/g, '')) * 100) : undefined;
  const start = q.length >= 6 && ID_START.test(q) ? q : undefined;
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return (x) =>
    (minor !== undefined && x.amount === minor) ||
    (start !== undefined && x.ids.some((id) => id.startsWith(start))) ||
    words.every((w) => (x.description ?? '').toLowerCase().includes(w));
}

/**
 * Reads `range` newest first, one page of 100 at a time, keeping what `keep` turns into a
 * result, until `enough` results, the end of the list, an item older than `since`, or `deadline`.
 * Returns whether it read all it had to (false: it stopped at the deadline).
 */
async function readNewestFirst<T extends object>(
  range: ListRange,
  named: (id: string) => Promise<Item | undefined>,
  cursorOf: (item: T) => string,
  keep: (item: T) => SearchResult | undefined,
  out: SearchResult[],
  since: string,
  deadline: number,
): Promise<boolean> {
  let after: string | undefined;
  for (;;) {
    if (out.length >= MAX_RESULTS) return true;
    if (Date.now() >= deadline) return false;
    const page = await cursorPage<T>(range, TEXT_PAGE, after, named, 'an item of yours');
    for (const item of page.items) {
      const r = keep(item);
      if (r && r.createdAt < since) return true;
      if (r) out.push(r);
    }
    const last = page.items.at(-1);
    if (!page.hasMore || !last) return true;
    after = cursorOf(last);
  }
}

/**
 * What the viewer may read whose id starts with `q`, whose description has `q`'s words, or whose
 * amount is `q` (DESIGN 10.7): its own transactions (and a merchant's schedules) of the last 90
 * days, newest first. `complete` is false when 2 s passed before the lists were read.
 */
export async function byText(viewer: Viewer, q: string, now = Date.now()): Promise<{ results: SearchResult[]; complete: boolean }> {
  if (viewer.kind === 'operator') return { results: [], complete: true };
  const matches = textMatcher(q);
  const since = new Date(now - TEXT_SEARCH_DAYS * 86_400_000).toISOString();
  const deadline = now + TEXT_SEARCH_MS;
  const bills: SearchResult[] = [];
  const schedules: SearchResult[] = [];
  const read = [
    readNewestFirst<BillItem>(
      transactionRange(transactionScope(viewer), { from: new Date(since) }),
      billNamed,
      (b) => b.billingRequestId,
      (b) =>
        b.createdAt < since || matches({ ids: [b.reference, b.billingRequestId], amount: b.amount, description: b.description })
          ? billResult(b, 'transaction')
          : undefined,
      bills,
      since,
      deadline,
    ),
  ];
  if (viewer.kind === 'merchant')
    read.push(
      readNewestFirst<Item>(
        scheduleRange({ merchantId: viewer.id }, {}),
        scheduleItemNamed,
        (it) => String(it.scheduleId),
        (it) => {
          const s = parseSchedule(it);
          if (!s) return undefined;
          return s.createdAt < since || matches({ ids: [s.scheduleId], amount: s.amount, description: s.description })
            ? scheduleResult(s)
            : undefined;
        },
        schedules,
        since,
        deadline,
      ),
    );
  const complete = (await Promise.all(read)).every(Boolean);
  return { results: [...bills, ...schedules].filter((r) => r.createdAt >= since), complete };
}

/**
 * Everything `q` names that the viewer may read, or else what it finds by text (a whole id
 * found is the answer: its start would find it again): at most 20, newest first.
 */
export async function search(viewer: Viewer, q: string): Promise<{ results: SearchResult[]; complete: boolean }> {
  const lookups: Promise<SearchResult[]>[] = [];
  if (ID_SHAPE.test(q)) lookups.push(byId(viewer, q));
  if (EMAIL_SHAPE.test(q)) lookups.push(byEmail(viewer, q));
  lookups.push(byClientRef(viewer, q));
  const exact = (await Promise.all(lookups)).flat();
  const text = exact.length || EMAIL_SHAPE.test(q) ? { results: [], complete: true } : await byText(viewer, q);
  const seen = new Set<string>();
  const results = [...exact, ...text.results].filter((r) => {
    const key = `${r.kind}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    results: results.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)).slice(0, MAX_RESULTS),
    complete: text.complete,
  };
}
