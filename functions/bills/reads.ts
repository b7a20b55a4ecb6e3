/**
 * Reads of the billing endpoints, amortized per request (DESIGN 9.6: at most 3 DynamoDB
 * requests on a 1-phrase bill's path, auth and the transaction included): the merchant
 * (name, provider, trust), the decisions and their pairs' counter items in ONE strongly
 * consistent BatchGetItem per 100 keys (`getBillingContext`); the customer's bank data is on
 * the decision (decisions made before release 3: one more BatchGetItem, cached per process:
 * a customer's bank and clientRef never change).
 */
import { customerKey } from '../customers/views';
import { decisionKey, type DecisionItem } from '../decisions/views';
import { trustOf, type TrustState } from '../domain/trust';
import { getParticipant, participantKey } from '../identity/participant-store';
import { pairCounterKey } from '../domain/limits';
import { batchGet, batchGetByKey, itemKeyOf, type Item } from '../platform/table';

export { batchGet } from '../platform/table';

export interface BillingMerchant {
  id: string;
  name: string;
  providerId?: string;
}

export interface BillingCustomer {
  id: string;
  bankId: string;
  /** The bank's own customer identifier (sent in `billing.request`). */
  clientRef: string;
}

export interface BillingContext {
  /** With `merchantId`: the merchant (undefined when that participant is not a merchant). */
  merchant?: BillingMerchant;
  /** The merchant's trust state, read fresh (DESIGN 8.1: checked again at every billing). */
  trust?: TrustState;
  /** Decisions by id (missing ids are absent). */
  decisions: Map<string, DecisionItem>;
  /** The pairs' counter items by decision id (null: none yet), for createBilling's `counter`. */
  counters: Map<string, Item | null>;
}

/**
 * The billing's reads in ONE strongly consistent BatchGetItem (per 100 keys): with
 * `merchantId` its participant item (name, provider, trust), the decisions and the pairs'
 * counter items (domain/limits.ts), so the billing itself reads nothing more.
 */
export async function getBillingContext(ids: readonly string[], merchantId?: string): Promise<BillingContext> {
  const distinct = [...new Set(ids)];
  const keys = [
    ...(merchantId === undefined ? [] : [participantKey(merchantId)]),
    ...distinct.flatMap((id) => [decisionKey(id), pairCounterKey(id)]),
  ];
  const found = keys.length ? await batchGetByKey<Item>(keys) : new Map<string, Item>();
  const decisions = new Map<string, DecisionItem>();
  const counters = new Map<string, Item | null>();
  for (const id of distinct) {
    const d = found.get(itemKeyOf(decisionKey(id))) as DecisionItem | undefined;
    if (d) decisions.set(id, d);
    counters.set(id, found.get(itemKeyOf(pairCounterKey(id))) ?? null);
  }
  if (merchantId === undefined) return { decisions, counters };
  const p = found.get(itemKeyOf(participantKey(merchantId)));
  if (p?.type !== 'merchant') return { decisions, counters };
  const merchant: BillingMerchant = {
    id: p.id as string,
    name: p.name as string,
    ...(p.providerId ? { providerId: p.providerId as string } : {}),
  };
  return { merchant, trust: trustOf(p), decisions, counters };
}

/** The customer's bank data a decision carries (decisions made since release 3), else undefined. */
export const customerOfDecision = (d: DecisionItem): BillingCustomer | undefined =>
  typeof d.clientRef === 'string' ? { id: d.customerId, bankId: d.bankId, clientRef: d.clientRef } : undefined;

// ---------------------------------------------------------------------------------------
// Customers: id, bankId, clientRef are immutable, so they are cached per process.

const CUSTOMER_CACHE_MAX = 20_000;
const customerCache = new Map<string, BillingCustomer>();

function remember(c: BillingCustomer): void {
  if (customerCache.size >= CUSTOMER_CACHE_MAX) customerCache.delete(customerCache.keys().next().value as string);
  customerCache.set(c.id, c);
}

/** The customers' bank data (id, bankId, clientRef) by id; unknown ids are absent. */
export async function getBillingCustomers(ids: readonly string[]): Promise<Map<string, BillingCustomer>> {
  const result = new Map<string, BillingCustomer>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const c = customerCache.get(id);
    if (c) result.set(id, c);
    else missing.push(id);
  }
  if (missing.length) {
    const found = await batchGet<Item>(missing.map(customerKey), ['id', 'bankId', 'clientRef', 'type']);
    for (const it of found.values()) {
      if (it.type !== 'customer') continue;
      const c: BillingCustomer = { id: it.id as string, bankId: it.bankId as string, clientRef: it.clientRef as string };
      remember(c);
      result.set(c.id, c);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Merchant: read once per request; the name (shown in events) is cached for a short time,
// its provider never changes.

const MERCHANT_TTL_MS = 30_000;
const merchantCache = new Map<string, { m: BillingMerchant; at: number }>();

export async function getBillingMerchant(id: string): Promise<BillingMerchant | undefined> {
  const hit = merchantCache.get(id);
  if (hit && Date.now() - hit.at < MERCHANT_TTL_MS) return hit.m;
  const p = await getParticipant(id);
  if (p?.type !== 'merchant') return undefined;
  const m: BillingMerchant = { id: p.id, name: p.name, ...(p.providerId ? { providerId: p.providerId } : {}) };
  if (merchantCache.size > 10_000) merchantCache.clear();
  merchantCache.set(id, { m, at: Date.now() });
  return m;
}
