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
import { getSchedule } from '../recurring/views';
import { getRefund } from '../refunds/views';
import { canSee, findBillByReference } from '../transactions/store';

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
      if (!visible) return [];
      const title = `${naira(s.amount)} ${s.frequency} · ${s.description ?? s.clientRef ?? s.scheduleId} · ${s.status}`;
      return [{ kind: 'schedule', id: s.scheduleId, title, createdAt: s.createdAt }];
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

/** Everything `q` names that the viewer may read: at most 20, newest first. */
export async function search(viewer: Viewer, q: string): Promise<SearchResult[]> {
  const lookups: Promise<SearchResult[]>[] = [];
  if (ID_SHAPE.test(q)) lookups.push(byId(viewer, q));
  if (EMAIL_SHAPE.test(q)) lookups.push(byEmail(viewer, q));
  lookups.push(byClientRef(viewer, q));
  const seen = new Set<string>();
  const results = (await Promise.all(lookups)).flat().filter((r) => {
    const key = `${r.kind}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return results.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)).slice(0, MAX_RESULTS);
}
