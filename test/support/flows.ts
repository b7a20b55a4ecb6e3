/**
 * Real flows through the public API, shared by the billing, recurring and sandbox tests:
 * participants, webhook endpoints on a real receiver, customer onboarding (bank batch),
 * email lookup (lookupPhrase), and the agreement loop (intent -> intent-response) that gives
 * a merchant an agreementPhrase under a decision with limits.
 *
 *   const a = await agreement(t, { decision: 'approve_once', limits: { daily: 100 }, receiver: rx });
 *   await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, body: { agreementPhrases: [a.agreementPhrase], ... } });
 *   await events(rx, a.hooks!.bank, 'billing.request', 1);
 *
 * Every helper asserts its own HTTP statuses and throws with the response body otherwise.
 */
import { randomToken } from '../../functions/domain/ids';
import type { TestApp } from './app';
import type { Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

export interface Party {
  id: string;
  apiKey: string;
  name: string;
  email: string;
}

export interface Hook {
  endpointId: string;
  url: string;
  /** Path on the receiver: `receiver.received(path)`. */
  path: string;
  secret: string;
}

export interface OnboardedCustomer {
  customerId: string;
  email: string;
  clientRef: string;
  reference: string;
}

export type DecisionValue = 'approve_once' | 'approve_recurring' | 'deny' | 'suspended';
/** Major units, as the API takes them. */
export type Limits = Partial<Record<'single' | 'daily' | 'weekly' | 'monthly', number>>;

export interface WebhookEvent<D = any> {
  id: string;
  type: string;
  createdAt: string;
  data: D;
}

const run = randomToken(6).toLowerCase();
let seq = 0;

function expectStatus(r: { status: number; body: unknown }, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
}

/** A webhook endpoint of `party` on the receiver (all events unless `events`). */
export async function webhook(
  t: TestApp,
  receiver: Receiver,
  party: Pick<Party, 'apiKey'>,
  opts: { label?: string; events?: string[]; headers?: Record<string, string> } = {},
): Promise<Hook> {
  const { url, path } = receiver.endpointUrl(opts.label ?? 'flow');
  const r = await t.call('POST', '/v1/webhooks/endpoints', {
    key: party.apiKey,
    headers: opts.headers,
    body: { url, ...(opts.events ? { events: opts.events } : {}) },
  });
  expectStatus(r, 201, 'create webhook endpoint');
  return { endpointId: r.body.data.id, url, path, secret: r.body.data.secret };
}

/** Parsed events of one type received on a hook's path. */
export function receivedEvents<D = any>(receiver: Receiver, hook: Pick<Hook, 'path'>, type?: string): WebhookEvent<D>[] {
  const seen = new Set<string>();
  return receiver
    .received(hook.path)
    .map((r) => JSON.parse(r.body) as WebhookEvent<D>)
    .filter((e) => (type === undefined || e.type === type) && !seen.has(e.id) && !!seen.add(e.id));
}

/**
 * Events in the order they happened (`createdAt`): the order a receiver rebuilds, since
 * deliveries of separate events may arrive in any order (docs/webhooks.md section 4).
 */
export const inCreationOrder = <E extends { createdAt: string; id: string }>(evs: E[]): E[] =>
  [...evs].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));

/** Wait until at least `count` distinct events of `type` (matching `where`) reached the hook. */
export async function events<D = any>(
  receiver: Receiver,
  hook: Pick<Hook, 'path'>,
  type: string,
  count = 1,
  where: (e: WebhookEvent<D>) => boolean = () => true,
  timeoutMs = 40_000,
): Promise<WebhookEvent<D>[]> {
  const pick = () => receivedEvents<D>(receiver, hook, type).filter(where);
  await receiver.waitFor(hook.path, () => pick().length >= count, timeoutMs);
  return pick();
}

/** A merchant, optionally under a new provider and trusted (approve_recurring needs trust; recurring needs premium). */
export async function merchantWithTrust(
  t: TestApp,
  opts: { provider?: boolean; trusted?: boolean; trustLevel?: 'basic' | 'enhanced' | 'premium' } = {},
): Promise<{ merchant: Party; provider?: Party }> {
  const needsProvider = opts.provider || opts.trusted || (opts.trustLevel !== undefined && opts.trustLevel !== 'basic');
  if (!needsProvider) return { merchant: await t.participant('merchant') };
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  if (opts.trusted || opts.trustLevel) {
    const level = opts.trustLevel ?? 'enhanced';
    if (level === 'premium') {
      const up = await t.call('PATCH', `/v1/operator/providers/${provider.id}`, { key: t.operatorKey, body: { maxTrustLevel: 'premium' } });
      expectStatus(up, 200, 'raise provider maxTrustLevel');
    }
    const r = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: provider.apiKey,
      body: { entityId: merchant.id, trusted: opts.trusted ?? true, trustLevel: level },
    });
    expectStatus(r, 200, 'set merchant trust');
  }
  return { merchant, provider };
}

/** The bank onboards one customer (batch of one). */
export async function onboardCustomer(
  t: TestApp,
  bank: Pick<Party, 'apiKey'>,
  overrides: Record<string, unknown> = {},
): Promise<OnboardedCustomer> {
  const i = ++seq;
  const record = {
    clientRef: `CR-${run}-${i}`,
    firstname: 'Ada',
    lastname: `Obi${i}`,
    email: `ada${i}-${run}@example.com`,
    country: 'NG',
    accountNumber: `01234${String(i).padStart(5, '0')}`,
    reference: `REF-${run}-${i}`,
    ...overrides,
  };
  const r = await t.call('POST', '/v1/bank/customers', { key: bank.apiKey, body: { customers: [record] } });
  expectStatus(r, 201, 'onboard customer');
  const ids: string[] = r.body.data.data.customerIds;
  if (ids.length !== 1) throw new Error(`onboard customer: not created ${JSON.stringify(r.body)}`);
  return {
    customerId: ids[0]!,
    email: record.email as string,
    clientRef: record.clientRef as string,
    reference: record.reference as string,
  };
}

/** The merchant's lookupPhrase for the customer at `bank` (email lookup). */
export async function lookupPhraseFor(
  t: TestApp,
  merchant: Pick<Party, 'apiKey'>,
  email: string,
  bankId: string,
  headers?: Record<string, string>,
): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const r = await t.call('GET', '/v1/customer/banks', { key: merchant.apiKey, headers, query: { email } });
    const entry = r.status === 200 ? r.body.data.banks.find((b: { bankId: string }) => b.bankId === bankId) : undefined;
    if (entry) return entry.lookupPhrase as string;
    // Discovery is "shortly" (within 5 s locally).
    if (Date.now() > deadline) throw new Error(`email lookup: ${r.status} ${JSON.stringify(r.body)}`);
    await sleep(100);
  }
}

/** Merchant sends an intent, the bank answers it: the decision record (with agreementPhrase). */
export async function decide(
  t: TestApp,
  p: {
    bank: Pick<Party, 'apiKey'>;
    merchant: Pick<Party, 'apiKey' | 'id'>;
    customerId: string;
    lookupPhrase: string;
    decision: DecisionValue;
    limits?: Limits;
    blockMerchant?: boolean;
  },
): Promise<{ id: string; agreementPhrase: string; decision: DecisionValue; [k: string]: unknown }> {
  const intent = await t.call('POST', '/v1/billing/intent', {
    key: p.merchant.apiKey,
    body: { lookupPhrases: [p.lookupPhrase], currency: 'NGN', description: 'Subscription' },
  });
  expectStatus(intent, 200, 'billing intent');
  const intentId: string | undefined = intent.body[0]?.intentId;
  const r = await t.call('POST', '/v1/billing/intent-response', {
    key: p.bank.apiKey,
    body: {
      customerId: p.customerId,
      entityId: p.merchant.id,
      lookupPhrase: p.lookupPhrase,
      customerDecision: p.decision,
      ...(p.limits ? { spendingLimits: p.limits } : {}),
      ...(p.blockMerchant !== undefined ? { blockMerchant: p.blockMerchant } : {}),
      ...(intentId ? { intentId } : {}),
    },
  });
  expectStatus(r, 200, 'intent response');
  return r.body.data;
}

export interface AgreementOptions {
  decision?: DecisionValue;
  limits?: Limits;
  blockMerchant?: boolean;
  /** Reuse parties (several customers of one merchant / bank). */
  bank?: Party;
  merchant?: Party;
  provider?: Party;
  /** Put the merchant under a provider (and trust it; approve_recurring defaults to trusted). */
  withProvider?: boolean;
  trustLevel?: 'basic' | 'enhanced' | 'premium';
  /** Register webhook endpoints (all events) for bank, merchant and provider on this receiver. */
  receiver?: Receiver;
}

export interface Agreement {
  bank: Party;
  merchant: Party;
  provider?: Party;
  customerId: string;
  clientRef: string;
  email: string;
  lookupPhrase: string;
  agreementPhrase: string;
  decisionId: string;
  hooks?: { bank: Hook; merchant: Hook; provider?: Hook };
}

const hooksMade = new WeakMap<Receiver, Map<string, Hook>>();

/** One hook per (receiver, party): reused when a party takes part in several agreements. */
async function hookFor(t: TestApp, receiver: Receiver, party: Party, label: string): Promise<Hook> {
  let byParty = hooksMade.get(receiver);
  if (!byParty) hooksMade.set(receiver, (byParty = new Map()));
  const known = byParty.get(party.id);
  if (known) return known;
  const h = await webhook(t, receiver, party, { label });
  byParty.set(party.id, h);
  return h;
}

/**
 * The whole agreement loop for one new customer: bank onboards the customer, merchant finds
 * them by email, sends an intent, the bank answers with `decision` (default approve_once),
 * `limits` (major units) and `blockMerchant`. approve_recurring makes the merchant trusted
 * (under a provider) unless parties are given.
 */
export async function agreement(t: TestApp, opts: AgreementOptions = {}): Promise<Agreement> {
  const decision = opts.decision ?? 'approve_once';
  const bank = opts.bank ?? (await t.participant('bank'));
  let merchant = opts.merchant;
  let provider = opts.provider;
  if (!merchant) {
    const trusted = decision === 'approve_recurring' || (opts.trustLevel !== undefined && opts.trustLevel !== 'basic');
    const made = await merchantWithTrust(t, {
      provider: opts.withProvider,
      trusted: trusted || undefined,
      trustLevel: opts.trustLevel ?? (trusted ? 'enhanced' : undefined),
    });
    merchant = made.merchant;
    provider = made.provider;
  }
  let hooks: Agreement['hooks'];
  if (opts.receiver) {
    hooks = {
      bank: await hookFor(t, opts.receiver, bank, 'bank'),
      merchant: await hookFor(t, opts.receiver, merchant, 'merchant'),
      ...(provider ? { provider: await hookFor(t, opts.receiver, provider, 'provider') } : {}),
    };
  }
  const customer = await onboardCustomer(t, bank);
  const lookupPhrase = await lookupPhraseFor(t, merchant, customer.email, bank.id);
  const d = await decide(t, {
    bank,
    merchant,
    customerId: customer.customerId,
    lookupPhrase,
    decision,
    limits: opts.limits,
    blockMerchant: opts.blockMerchant,
  });
  return {
    bank,
    merchant,
    provider,
    customerId: customer.customerId,
    clientRef: customer.clientRef,
    email: customer.email,
    lookupPhrase,
    agreementPhrase: d.agreementPhrase,
    decisionId: d.id,
    hooks,
  };
}

/** A customer the merchant can address by lookupPhrase only (no decision): for one-time pays. */
export async function payee(
  t: TestApp,
  opts: { bank?: Party; merchant?: Party; receiver?: Receiver } = {},
): Promise<{
  bank: Party;
  merchant: Party;
  customerId: string;
  clientRef: string;
  lookupPhrase: string;
  hooks?: { bank: Hook; merchant: Hook };
}> {
  const bank = opts.bank ?? (await t.participant('bank'));
  const merchant = opts.merchant ?? (await t.participant('merchant'));
  const hooks = opts.receiver
    ? { bank: await hookFor(t, opts.receiver, bank, 'bank'), merchant: await hookFor(t, opts.receiver, merchant, 'merchant') }
    : undefined;
  const customer = await onboardCustomer(t, bank);
  const lookupPhrase = await lookupPhraseFor(t, merchant, customer.email, bank.id);
  return { bank, merchant, customerId: customer.customerId, clientRef: customer.clientRef, lookupPhrase, hooks };
}

/** POST /v1/customer/bill with sensible defaults. */
export function bill(
  t: TestApp,
  merchant: Pick<Party, 'apiKey'>,
  agreementPhrases: string[],
  amount: number,
  opts: { currency?: string; description?: string; headers?: Record<string, string> } = {},
) {
  return t.call('POST', '/v1/customer/bill', {
    key: merchant.apiKey,
    headers: opts.headers,
    body: { agreementPhrases, amount, currency: opts.currency ?? 'NGN', description: opts.description ?? 'Order' },
  });
}

/** Bill one phrase and return the single element (and the HTTP status). */
export async function billOne(t: TestApp, a: { merchant: Pick<Party, 'apiKey'>; agreementPhrase: string }, amount: number) {
  const r = await bill(t, a.merchant, [a.agreementPhrase], amount);
  if (!Array.isArray(r.body) || r.body.length !== 1) throw new Error(`expected one bill element: ${r.status} ${JSON.stringify(r.body)}`);
  return { status: r.status, el: r.body[0] };
}

/** POST /v1/customer/pay with sensible defaults. */
export function pay(
  t: TestApp,
  merchant: Pick<Party, 'apiKey'>,
  lookupPhrases: string[],
  amount: number,
  opts: { currency?: string; description?: string; headers?: Record<string, string> } = {},
) {
  return t.call('POST', '/v1/customer/pay', {
    key: merchant.apiKey,
    headers: opts.headers,
    body: { lookupPhrases, amount, currency: opts.currency ?? 'NGN', description: opts.description ?? 'One-time' },
  });
}

/** POST /v1/billing/bank-response. */
export function bankResponse(
  t: TestApp,
  bank: Pick<Party, 'apiKey'>,
  billingRequestId: string,
  action: DecisionValue,
  /** null: sent without one (allowed for deny / suspended). */
  bankTransactionId: string | null = `BTX-${randomToken(10)}`,
  /** With deny: the bank declined, not the customer (DESIGN 8.6). */
  declineReason?: string,
) {
  return t.call('POST', '/v1/billing/bank-response', {
    key: bank.apiKey,
    body: {
      billingRequestId,
      action,
      ...(bankTransactionId !== null ? { bankTransactionId } : {}),
      ...(declineReason ? { declineReason } : {}),
    },
  });
}
