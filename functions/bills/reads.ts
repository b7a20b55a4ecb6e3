/**
 * Reads of the billing endpoints, amortized per request (docs/billing-design.md: at most 3
 * DynamoDB requests per billed phrase): decisions in one BatchGetItem per 100 phrases,
 * customers' bank data in one BatchGetItem (and cached: a customer's bank and clientRef
 * never change), the merchant once per request (cached briefly per process).
 */
import { customerKey } from '../customers/views';
import { decisionKey, type DecisionItem } from '../decisions/views';
import { trustOf, type TrustState } from '../domain/trust';
import { getParticipant, participantKey } from '../identity/participant-store';
import { batchGet, type Item } from '../platform/table';

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

/** Decisions by id (missing ids are absent from the map). */
export async function getDecisions(ids: readonly string[]): Promise<Map<string, DecisionItem>> {
  return (await getDecisionsAndTrust(ids)).decisions;
}

/**
 * The decisions and, with `merchantId`, the merchant's trust state read fresh IN THE SAME
 * BatchGetItem (DESIGN 8.1: trust is checked again at every billing, at no extra request).
 * No decision to read: nothing is read (nothing will be billed).
 */
export async function getDecisionsAndTrust(
  ids: readonly string[],
  merchantId?: string,
): Promise<{ decisions: Map<string, DecisionItem>; trust: TrustState | undefined }> {
  if (ids.length === 0) return { decisions: new Map(), trust: undefined };
  const merchantPk = merchantId === undefined ? undefined : participantKey(merchantId).pk;
  const byPk = await batchGet<Item>([...(merchantId === undefined ? [] : [participantKey(merchantId)]), ...ids.map(decisionKey)]);
  const merchant = merchantPk === undefined ? undefined : byPk.get(merchantPk);
  byPk.delete(merchantPk ?? '');
  const decisions = new Map([...byPk.values()].map((d) => [(d as DecisionItem).id, d as DecisionItem]));
  return { decisions, trust: merchant && merchant.type === 'merchant' ? trustOf(merchant) : undefined };
}

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
