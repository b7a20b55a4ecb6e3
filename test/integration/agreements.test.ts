/**
 * Agreements end to end: billing intents, the bank's answer, agreement phrases,
 * customer decisions — against the real local stack, with REAL webhook receivers for the
 * bank, the merchant and the merchant's provider.
 *
 * operator creates bank(s), provider, merchant(s) -> bank onboards customers -> merchant gets
 * lookupPhrases by email -> everyone registers a webhook endpoint -> intent -> bank receives
 * billing.intent -> intent-response -> merchant (and provider) receive billing.intent.response
 * with the agreementPhrase -> decisions readable by merchant and bank -> bank PUT -> ...
 */
import { createHash, createHmac } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { db } from '../../functions/platform/clients';
import { decisionKey, type DecisionItem } from '../../functions/decisions/views';
import { intentKey, type IntentItem } from '../../functions/decisions/intents';
import { getItem, table } from '../../functions/platform/table';
import { withAppAndReceiver, type TestApp } from '../support/app';
import type { ReceivedRequest, Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
const run = randomToken(6).toLowerCase();
let seq = 0;

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

type Who = { id: string; apiKey: string; name: string };
type Hook = { path: string; secret: string };
interface Customer {
  id: string;
  email: string;
  clientRef: string;
}

// ---------------------------------------------------------------------------------------
// Helpers

async function hook(who: Who, headers?: Record<string, string>): Promise<Hook> {
  const { url, path } = rx.endpointUrl('agr');
  const r = await t.call('POST', '/v1/webhooks/endpoints', { key: who.apiKey, headers, body: { url } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { path, secret: r.body.data.secret };
}

async function onboard(bank: Who, n = 1): Promise<Customer[]> {
  const records = Array.from({ length: n }, () => {
    const i = ++seq;
    return {
      clientRef: `CR-${run}-${i}`,
      firstname: 'Ada',
      lastname: `Obi${i}`,
      email: `ada${i}-${run}@example.com`,
      country: 'NG',
      accountNumber: `01234${String(i).padStart(5, '0')}`,
      reference: `REF-${run}-${i}`,
    };
  });
  const r = await t.call('POST', '/v1/bank/customers', { key: bank.apiKey, body: { customers: records } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const ids: string[] = r.body.data.data.customerIds;
  expect(ids).toHaveLength(n);
  return ids.map((id, i) => ({ id, email: records[i]!.email, clientRef: records[i]!.clientRef }));
}

/** The merchant's lookupPhrase for the customer at `bank` (email lookup). */
async function lookupPhrase(merchant: Who, customer: Customer, bank: Who, headers?: Record<string, string>): Promise<string> {
  const r = await t.call('GET', '/v1/customer/banks', { key: merchant.apiKey, headers, query: { email: customer.email } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const entry = r.body.data.banks.find((b: { bankId: string }) => b.bankId === bank.id);
  expect(entry).toBeTruthy();
  return entry.lookupPhrase;
}

const intent = (merchant: Who, lookupPhrases: unknown, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  t.call('POST', '/v1/billing/intent', {
    key: merchant.apiKey,
    headers,
    body: { lookupPhrases, currency: 'NGN', description: 'Monthly gym membership', ...extra },
  });

const answer = (bank: Who, body: Record<string, unknown>) => t.call('POST', '/v1/billing/intent-response', { key: bank.apiKey, body });

type Event = { id: string; type: string; createdAt: string; data: any; raw: ReceivedRequest };

function eventsAt(h: Hook, type?: string): Event[] {
  return rx
    .received(h.path)
    .map((r) => ({ ...(JSON.parse(r.body) as Omit<Event, 'raw'>), raw: r }))
    .filter((e) => !type || e.type === type);
}

/** Wait for an event at the hook matching `pred`; checks its signature. */
async function waitEvent(h: Hook, type: string, pred: (data: any) => boolean = () => true): Promise<Event> {
  await rx.waitFor(h.path, () => eventsAt(h, type).some((e) => pred(e.data)), 40_000);
  const e = eventsAt(h, type).find((x) => pred(x.data))!;
  const expected = createHmac('sha256', h.secret).update(e.raw.body).digest('hex');
  expect(e.raw.headers['x-webhook-signature']).toBe(expected);
  return e;
}

async function scanCount(prefix: string): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': prefix },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    n += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

/** A world: a provider with an (untrusted) merchant, a bank, hooks for all three, onboarded customers. */
async function world(customers = 1) {
  const provider = await t.participant('provider');
  const merchant = await t.participant('merchant', { providerId: provider.id });
  const bank = await t.participant('bank');
  const [bankHook, merchantHook, providerHook] = await Promise.all([hook(bank), hook(merchant), hook(provider)]);
  const cs = await onboard(bank, customers);
  const phrases = await Promise.all(cs.map((c) => lookupPhrase(merchant, c, bank)));
  return { provider, merchant, bank, bankHook, merchantHook, providerHook, customers: cs, phrases };
}

/** Send an intent for one phrase and wait until the bank received it; returns the intentId. */
async function intentDelivered(w: Awaited<ReturnType<typeof world>>, i = 0, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await intent(w.merchant, [w.phrases[i]], extra);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const intentId = r.body[0].intentId as string;
  await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === intentId);
  return intentId;
}

const trust = (w: { provider: Who; merchant: Who }, trusted: boolean) =>
  t.call('PATCH', '/v1/provider/merchant/trust', { key: w.provider.apiKey, body: { entityId: w.merchant.id, trusted } });

// ---------------------------------------------------------------------------------------

describe('the agreement loop', () => {
  it('intent -> billing.intent at the bank -> intent-response -> billing.intent.response at merchant and provider -> decisions readable', async () => {
    const w = await world();
    const [c] = w.customers;
    const phrase = w.phrases[0]!;

    // 1. The merchant sends the intent.
    const sent = await intent(w.merchant, [phrase], { description: 'Gym membership, NGN 5,000 a month' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual([
      {
        statusCode: 200,
        success: true,
        message: 'Billing intent sent',
        lookupPhrase: phrase,
        entityId: w.merchant.id,
        intentId: expect.stringMatching(/^int_/),
      },
    ]);
    const intentId = sent.body[0].intentId;

    // 2. The bank receives billing.intent (signed), with the contract's fields.
    const bi = await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === intentId);
    expect(bi.data).toEqual({
      intentId,
      customerId: c!.id,
      clientRef: c!.clientRef,
      lookupPhrase: phrase,
      entityId: w.merchant.id,
      merchantName: w.merchant.name,
      currency: 'NGN',
      description: 'Gym membership, NGN 5,000 a month',
      allowedDecisions: ['approve_once', 'deny', 'suspended'],
      createdAt: expect.any(String),
    });
    expect(new Date(bi.data.createdAt).toISOString()).toBe(bi.data.createdAt);
    expect(bi.raw.headers['x-webhook-id']).toBe(bi.id);
    // Only the bank receives billing.intent.
    expect(eventsAt(w.merchantHook, 'billing.intent')).toHaveLength(0);
    expect(eventsAt(w.providerHook, 'billing.intent')).toHaveLength(0);

    // 3. The bank answers with the customer's decision.
    const res = await answer(w.bank, {
      customerId: c!.id,
      entityId: w.merchant.id,
      lookupPhrase: phrase,
      customerDecision: 'approve_once',
      spendingLimits: { daily: 5000, monthly: 100000.5 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, success: true, message: expect.any(String) });
    const decision = res.body.data;
    expect(decision).toEqual({
      id: expect.stringMatching(/^dec_[0-9A-Za-z]{22}$/),
      customerId: c!.id,
      entityId: w.merchant.id,
      agreementPhrase: expect.stringMatching(/^ap_[A-Za-z0-9_-]+$/),
      decision: 'approve_once',
      spendingLimits: { daily: 5000, monthly: 100000.5 },
      blockMerchant: false,
      createdAt: expect.any(String),
      lookupPhrase: phrase,
      lastUpdated: expect.any(String),
      lastUsed: null,
    });

    // 4. The merchant AND its provider receive billing.intent.response with the agreementPhrase.
    const expectedEvent = {
      intentId,
      decisionId: decision.id,
      customerId: c!.id,
      entityId: w.merchant.id,
      lookupPhrase: phrase,
      decision: 'approve_once',
      agreementPhrase: decision.agreementPhrase,
      spendingLimits: { daily: 5000, monthly: 100000.5 },
      blockMerchant: false,
      customerAction: 'approved',
    };
    const mr = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === intentId);
    expect(mr.data).toEqual(expectedEvent);
    const pr = await waitEvent(w.providerHook, 'billing.intent.response', (d) => d.intentId === intentId);
    expect(pr.data).toEqual(expectedEvent);
    expect(pr.id).toBe(mr.id); // one event, two receivers
    expect(eventsAt(w.bankHook, 'billing.intent.response')).toHaveLength(0);

    // 5. Stored: the intent is answered; the decision holds minor units and version 1.
    const storedIntent = await getItem<IntentItem>(intentKey(intentId));
    expect(storedIntent).toMatchObject({ status: 'answered', decision: 'approve_once', answeredAt: expect.any(String) });
    const stored = await getItem<DecisionItem>(decisionKey(decision.id));
    expect(stored).toMatchObject({ spendingLimits: { daily: 500000, monthly: 10000050 }, version: 1, bankId: w.bank.id, lastUsed: null });
    // The phrase is indexed by its hash: the read functions hold no key to decrypt it.
    expect(stored?.gsi1pk).toBe(`APHRASE#${createHash('sha256').update(decision.agreementPhrase).digest('hex')}`);

    // 6. The merchant reads it: list (spec's list fields, total top level) and single (+ lookupPhrase, lastUpdated).
    const list = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ statusCode: 200, success: true, total: 1 });
    expect(list.body.data).toEqual([
      {
        id: decision.id,
        customerId: c!.id,
        entityId: w.merchant.id,
        agreementPhrase: decision.agreementPhrase,
        decision: 'approve_once',
        spendingLimits: { daily: 5000, monthly: 100000.5 },
        blockMerchant: false,
        createdAt: decision.createdAt,
        lastUsed: null,
      },
    ]);
    const one = await t.call('GET', `/v1/customer-decisions/${decision.id}`, { key: w.merchant.apiKey });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ statusCode: 200, success: true });
    // DESIGN 8.5: the single read adds `remaining` for the current periods (null = no limit).
    const remaining = { single: null, daily: 5000, weekly: null, monthly: 100000.5, yearly: null, payments: null };
    expect(one.body.data).toEqual({ ...decision, remaining });

    // ...filtered by its agreementPhrase, customerId and lookupPhrase.
    for (const query of [{ agreementPhrase: decision.agreementPhrase }, { customerId: c!.id }, { lookupPhrase: phrase }] as Record<
      string,
      string
    >[]) {
      const f = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query });
      expect(f.status).toBe(200);
      expect(f.body.total).toBe(1);
      expect(f.body.data.map((d: { id: string }) => d.id)).toEqual([decision.id]);
    }

    // 7. The bank reads it in its list, its customer and merchant named.
    const bl = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey });
    expect(bl.status).toBe(200);
    expect(bl.body).toMatchObject({ statusCode: 200, success: true, total: 1 });
    expect(bl.body.data).toEqual([
      {
        ...list.body.data[0],
        remaining,
        customer: { name: expect.stringMatching(/^Ada Obi\d+$/), email: c!.email },
        merchantName: w.merchant.name,
      },
    ]);
  });

  it('a later intent-response updates the ONE decision in place: same id, same agreementPhrase, new state', async () => {
    const w = await world();
    const [c] = w.customers;
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0] };
    await intentDelivered(w);
    const first = await answer(w.bank, { ...base, customerDecision: 'approve_once', spendingLimits: { single: 100 } });
    expect(first.status).toBe(200);

    // New terms: a new intent; the customer denies this time.
    const second = await intentDelivered(w, 0, { description: 'New price' });
    const denied = await answer(w.bank, { ...base, customerDecision: 'deny' });
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    expect(denied.body.data).toMatchObject({
      id: first.body.data.id,
      agreementPhrase: first.body.data.agreementPhrase,
      createdAt: first.body.data.createdAt,
      decision: 'deny',
      blockMerchant: false,
    });
    // An answer sets the whole state: no limits given, none kept.
    expect(denied.body.data.spendingLimits).toEqual({});
    expect(denied.body.data.lastUpdated >= first.body.data.lastUpdated).toBe(true);
    const ev = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === second);
    expect(ev.data).toMatchObject({ decision: 'deny', agreementPhrase: null, customerAction: 'declined' });
    expect(ev.data.spendingLimits).toEqual({});

    // Approved but the merchant blocked: declined, no agreementPhrase in the event.
    const third = await intentDelivered(w);
    const blocked = await answer(w.bank, { ...base, customerDecision: 'approve_once', blockMerchant: true });
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toMatchObject({ id: first.body.data.id, decision: 'approve_once', blockMerchant: true });
    const ev3 = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === third);
    expect(ev3.data).toMatchObject({ decision: 'approve_once', blockMerchant: true, agreementPhrase: null, customerAction: 'declined' });

    // Still one decision for the pair, at version 3.
    const list = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey });
    expect(list.body.total).toBe(1);
    expect((await getItem<DecisionItem>(decisionKey(first.body.data.id)))?.version).toBe(3);
    // The agreementPhrase still names it (it means the current state).
    const f = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { agreementPhrase: first.body.data.agreementPhrase },
    });
    expect(f.body.data).toHaveLength(1);
    expect(f.body.data[0]).toMatchObject({ decision: 'approve_once', blockMerchant: true });
  });

  it('answers the given intentId, else the newest open intent of (customer, merchant, lookupPhrase)', async () => {
    const w = await world();
    const [c] = w.customers;
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0] };
    const older = await intentDelivered(w, 0, { description: 'older' });
    const newer = await intentDelivered(w, 0, { description: 'newer' });

    // Without intentId: the newest open one.
    const a = await answer(w.bank, { ...base, customerDecision: 'approve_once' });
    expect(a.status).toBe(200);
    expect((await getItem<IntentItem>(intentKey(newer)))?.status).toBe('answered');
    expect((await getItem<IntentItem>(intentKey(older)))?.status).toBe('open');
    // Again without intentId: the older one is now the newest open.
    const b = await answer(w.bank, { ...base, customerDecision: 'suspended' });
    expect(b.status).toBe(200);
    expect((await getItem<IntentItem>(intentKey(older)))?.status).toBe('answered');
    const ev = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === older);
    expect(ev.data).toMatchObject({ decision: 'suspended', customerAction: 'declined', agreementPhrase: null });

    // With intentId.
    const third = await intentDelivered(w, 0, { description: 'third' });
    await intentDelivered(w, 0, { description: 'fourth' });
    const byId = await answer(w.bank, { ...base, intentId: third, customerDecision: 'approve_once' });
    expect(byId.status).toBe(200);
    expect((await getItem<IntentItem>(intentKey(third)))?.status).toBe('answered');
  });

  it('the bank changes a decision with PUT; the merchant gets the new state (intentId null)', async () => {
    const w = await world();
    const [c] = w.customers;
    await intentDelivered(w);
    const created = await answer(w.bank, {
      customerId: c!.id,
      entityId: w.merchant.id,
      lookupPhrase: w.phrases[0],
      customerDecision: 'approve_once',
      spendingLimits: { single: 250.75, weekly: 1000 },
    });
    const id = created.body.data.id;

    // Only the limits: the decision and block are kept; the limits are replaced whole.
    const put1 = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, { key: w.bank.apiKey, body: { spendingLimits: { daily: 300 } } });
    expect(put1.status, JSON.stringify(put1.body)).toBe(200);
    expect(put1.body).toMatchObject({ statusCode: 200, success: true });
    expect(put1.body.data).toEqual({
      ...created.body.data,
      spendingLimits: { daily: 300 },
      lastUpdated: expect.any(String),
    });
    const e1 = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === null && d.spendingLimits.daily === 300);
    expect(e1.data).toEqual({
      intentId: null,
      decisionId: id,
      customerId: c!.id,
      entityId: w.merchant.id,
      lookupPhrase: w.phrases[0],
      decision: 'approve_once',
      agreementPhrase: created.body.data.agreementPhrase,
      spendingLimits: { daily: 300 },
      blockMerchant: false,
      customerAction: 'approved',
    });
    await waitEvent(w.providerHook, 'billing.intent.response', (d) => d.intentId === null && d.spendingLimits.daily === 300);

    // Block the merchant: billing stops at once (declined, no phrase in the event).
    const put2 = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, { key: w.bank.apiKey, body: { blockMerchant: true } });
    expect(put2.status).toBe(200);
    expect(put2.body.data).toMatchObject({ decision: 'approve_once', blockMerchant: true, spendingLimits: { daily: 300 } });
    const e2 = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === null && d.blockMerchant === true);
    expect(e2.data).toMatchObject({ customerAction: 'declined', agreementPhrase: null });

    // A null period means no limit for it.
    const putNull = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, {
      key: w.bank.apiKey,
      body: { spendingLimits: { single: 10, daily: null } },
    });
    expect(putNull.status).toBe(200);
    expect(putNull.body.data.spendingLimits).toEqual({ single: 10 });

    // Suspend and unblock, clear the limits.
    const put3 = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, {
      key: w.bank.apiKey,
      body: { customerDecision: 'suspended', blockMerchant: false, spendingLimits: {} },
    });
    expect(put3.status).toBe(200);
    expect(put3.body.data).toMatchObject({ decision: 'suspended', blockMerchant: false });
    expect(put3.body.data.spendingLimits).toEqual({});
    await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === null && d.decision === 'suspended');

    // The merchant's read shows the current state; the id and phrase never changed.
    const one = await t.call('GET', `/v1/customer-decisions/${id}`, { key: w.merchant.apiKey });
    expect(one.body.data).toMatchObject({
      id,
      agreementPhrase: created.body.data.agreementPhrase,
      decision: 'suspended',
      blockMerchant: false,
    });
    expect(one.body.data.spendingLimits).toEqual({});
    expect((await getItem<DecisionItem>(decisionKey(id)))?.version).toBe(5);
  });

  it('a provider sends an intent for its merchant with X-Entity-Id; the element names the merchant', async () => {
    const w = await world();
    const asMerchant = { 'x-entity-id': w.merchant.id };
    const r = await intent({ ...w.provider }, [w.phrases[0]], {}, asMerchant);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body[0]).toMatchObject({ statusCode: 200, entityId: w.merchant.id });
    const ev = await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === r.body[0].intentId);
    expect(ev.data.merchantName).toBe(w.merchant.name);
    // ...and reads the merchant's decisions the same way.
    const list = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.provider.apiKey, headers: asMerchant });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
  });
});

describe('billing intent elements and statuses', () => {
  const customerNotFound = {
    statusCode: 404,
    success: false,
    message: 'Customer not found',
    code: 'customer_not_found',
    type: 'not_found_error',
    docUrl: '/docs#error-customer_not_found',
  };

  it('one known and one unknown phrase: 207 with one element per phrase, in order', async () => {
    const w = await world();
    const unknown = `lp_${randomToken(32)}`;
    const r = await intent(w.merchant, [unknown, w.phrases[0]]);
    expect(r.status).toBe(207);
    expect(r.body).toEqual([
      { ...customerNotFound, lookupPhrase: unknown, entityId: w.merchant.id },
      {
        statusCode: 200,
        success: true,
        message: 'Billing intent sent',
        lookupPhrase: w.phrases[0],
        entityId: w.merchant.id,
        intentId: expect.stringMatching(/^int_/),
      },
    ]);
  });

  it('all unknown: 404 (the common statusCode) and nothing sent; all known: 200', async () => {
    const w = await world(2);
    const before = await scanCount('INTENT#');
    const r = await intent(w.merchant, ['nonsense', `lp_${randomToken(32)}`]);
    expect(r.status).toBe(404);
    expect(r.body.map((e: { statusCode: number; message: string }) => [e.statusCode, e.message])).toEqual([
      [404, 'Customer not found'],
      [404, 'Customer not found'],
    ]);
    expect(await scanCount('INTENT#')).toBe(before);

    const ok = await intent(w.merchant, w.phrases);
    expect(ok.status).toBe(200);
    expect(ok.body.map((e: { statusCode: number }) => e.statusCode)).toEqual([200, 200]);
    await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === ok.body[1].intentId);
    await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === ok.body[0].intentId);
    expect(ok.body[0].intentId).not.toBe(ok.body[1].intentId);
  });

  it("another merchant's lookupPhrase is an unknown phrase (element 404)", async () => {
    const w = await world();
    const other = await t.participant('merchant');
    const r = await intent(other, [w.phrases[0]]);
    expect(r.status).toBe(404);
    expect(r.body).toEqual([{ ...customerNotFound, lookupPhrase: w.phrases[0], entityId: other.id }]);
  });

  it('a phrase listed twice is one intent; both positions carry it', async () => {
    const w = await world();
    const before = await scanCount('INTENT#');
    const r = await intent(w.merchant, [w.phrases[0], w.phrases[0]]);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(2);
    expect(r.body[0]).toEqual(r.body[1]);
    expect(await scanCount('INTENT#')).toBe(before + 1);
  });

  it('a trusted merchant is offered all four decisions', async () => {
    const w = await world();
    expect((await trust(w, true)).status).toBe(200);
    const r = await intent(w.merchant, [w.phrases[0]]);
    const ev = await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === r.body[0].intentId);
    expect(ev.data.allowedDecisions).toEqual(['approve_once', 'approve_recurring', 'deny', 'suspended']);
  });

  it('whole-body problems are 400 Invalid request parameters and write nothing', async () => {
    const w = await world();
    const p = w.phrases[0];
    const bodies: unknown[] = [
      { lookupPhrases: [], currency: 'NGN', description: 'x' },
      { lookupPhrases: [p], currency: 'NGN' },
      { lookupPhrases: [p], currency: 'NGN', description: '' },
      { lookupPhrases: [p], currency: 'NGN', description: '   ' },
      { lookupPhrases: [p], currency: 'NGN', description: 'x'.repeat(501) },
      { lookupPhrases: [p], currency: 'ngn', description: 'x' },
      { lookupPhrases: [p], currency: 'NAIRA', description: 'x' },
      { lookupPhrases: [p], description: 'x' },
      { lookupPhrases: p, currency: 'NGN', description: 'x' },
      { lookupPhrases: [p, ''], currency: 'NGN', description: 'x' },
      { lookupPhrases: [p, 42], currency: 'NGN', description: 'x' },
      { lookupPhrases: [p, null], currency: 'NGN', description: 'x' },
      { lookupPhrases: Array.from({ length: 101 }, () => p), currency: 'NGN', description: 'x' },
      { lookupPhrases: [p], currency: 'NGN', description: 'x', amount: 10 },
      {},
      [],
      'text',
    ];
    const before = await scanCount('INTENT#');
    for (const body of bodies) {
      const r = await t.call('POST', '/v1/billing/intent', { key: w.merchant.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: 'Invalid request parameters',
        code: 'invalid_request_parameters',
      });
    }
    const bad = await t.call('POST', '/v1/billing/intent', { key: w.merchant.apiKey, rawBody: '{"lookupPhrases": [' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid JSON body');
    expect(await scanCount('INTENT#')).toBe(before);
    expect(eventsAt(w.bankHook, 'billing.intent')).toHaveLength(0);
  });

  it('a well-formed non-NGN currency is 400 Unsupported currency and writes nothing', async () => {
    const w = await world();
    const before = await scanCount('INTENT#');
    for (const currency of ['USD', 'GBP', 'XYZ']) {
      const r = await intent(w.merchant, [w.phrases[0]], { currency });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Unsupported currency' });
    }
    expect(await scanCount('INTENT#')).toBe(before);
  });

  it('100 phrases (the maximum) are accepted; each distinct phrase is one intent', async () => {
    const w = await world(3);
    const phrases = Array.from({ length: 100 }, (_, i) => (i < 3 ? w.phrases[i]! : `lp_${randomToken(32)}`));
    const r = await intent(w.merchant, phrases);
    expect(r.status).toBe(207);
    expect(r.body).toHaveLength(100);
    expect(r.body.filter((e: { statusCode: number }) => e.statusCode === 200)).toHaveLength(3);
    r.body.forEach((e: { lookupPhrase: string }, i: number) => expect(e.lookupPhrase).toBe(phrases[i]));
  });

  it('an Idempotency-Key replays the first answer and sends no second intent', async () => {
    const w = await world();
    const headers = { 'idempotency-key': `intent-${randomToken(12)}` };
    const before = await scanCount('INTENT#');
    const first = await intent(w.merchant, [w.phrases[0]], {}, headers);
    expect(first.status).toBe(200);
    const again = await intent(w.merchant, [w.phrases[0]], {}, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await scanCount('INTENT#')).toBe(before + 1);
    await waitEvent(w.bankHook, 'billing.intent', (d) => d.intentId === first.body[0].intentId);
    await sleep(300);
    expect(eventsAt(w.bankHook, 'billing.intent')).toHaveLength(1);
  });

  it('banks and providers may not send intents (403)', async () => {
    const w = await world();
    const r = await intent(w.bank, [w.phrases[0]]);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Forbidden for this participant type');
  });
});

describe('intent-response refusals (each writes nothing)', () => {
  async function snapshot(decisionIdOrNull: string | null, intentId: string) {
    return {
      intent: await getItem<IntentItem>(intentKey(intentId)),
      decision: decisionIdOrNull ? await getItem<DecisionItem>(decisionKey(decisionIdOrNull)) : undefined,
      decisions: await scanCount('DEC#'),
      events: await scanCount('EVT#'),
    };
  }

  it('answering twice is 409 Billing intent has already been answered (with and without intentId)', async () => {
    const w = await world();
    const [c] = w.customers;
    const intentId = await intentDelivered(w);
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0], customerDecision: 'approve_once' };
    const first = await answer(w.bank, base);
    expect(first.status).toBe(200);
    const before = await snapshot(first.body.data.id, intentId);
    for (const body of [base, { ...base, intentId }, { ...base, customerDecision: 'deny', intentId }]) {
      const again = await answer(w.bank, body);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ statusCode: 409, success: false, message: 'Billing intent has already been answered' });
    }
    expect(await snapshot(first.body.data.id, intentId)).toEqual(before);
  });

  it('two concurrent answers to one intent: exactly one succeeds, the other is 409; one event', async () => {
    const w = await world();
    const [c] = w.customers;
    const intentId = await intentDelivered(w);
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0] };
    const results = await Promise.all(
      (['approve_once', 'deny', 'suspended', 'approve_once', 'deny'] as const).map((d) =>
        answer(w.bank, { ...base, customerDecision: d, intentId }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.message).toBe('Billing intent has already been answered');
    const winner = results.find((r) => r.status === 200)!.body.data;
    await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === intentId);
    await sleep(500);
    expect(eventsAt(w.merchantHook, 'billing.intent.response').filter((e) => e.data.intentId === intentId)).toHaveLength(1);
    const stored = await getItem<DecisionItem>(decisionKey(winner.id));
    expect(stored).toMatchObject({ decision: winner.decision, version: 1 });
    expect((await getItem<IntentItem>(intentKey(intentId)))?.decision).toBe(winner.decision);
  });

  it("another bank's customer (or an unknown one) is 404 Customer not found", async () => {
    const w = await world();
    const [c] = w.customers;
    const intentId = await intentDelivered(w);
    const otherBank = await t.participant('bank');
    const before = await snapshot(null, intentId);
    for (const [bank, customerId] of [
      [otherBank, c!.id],
      [w.bank, 'cus_doesnotexist'],
    ] as const) {
      const r = await answer(bank, { customerId, entityId: w.merchant.id, lookupPhrase: w.phrases[0], customerDecision: 'approve_once' });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer not found' });
    }
    expect(await snapshot(null, intentId)).toEqual(before);
  });

  it('an unknown merchant is 404 Merchant not found; no intent is 404 Billing intent not found', async () => {
    const w = await world(2);
    const [c, d] = w.customers;
    const intentId = await intentDelivered(w);
    const before = await snapshot(null, intentId);
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0], customerDecision: 'approve_once' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, entityId: 'mer_unknown' }, 404, 'Merchant not found'],
      [{ ...base, entityId: w.bank.id }, 404, 'Merchant not found'],
      // The phrase names no intent of this customer and merchant.
      [{ ...base, lookupPhrase: `lp_${randomToken(32)}` }, 404, 'Billing intent not found'],
      // Another customer's phrase with this customer.
      [{ ...base, lookupPhrase: w.phrases[1] }, 404, 'Billing intent not found'],
      // No intent for customer d at all.
      [{ ...base, customerId: d!.id, lookupPhrase: w.phrases[1] }, 404, 'Billing intent not found'],
      // An intentId that is not this triple's, or does not exist.
      [{ ...base, customerId: d!.id, lookupPhrase: w.phrases[1], intentId }, 404, 'Billing intent not found'],
      [{ ...base, intentId: 'int_doesnotexist' }, 404, 'Billing intent not found'],
      [{ ...base, intentId: 'not an id' }, 404, 'Billing intent not found'],
    ];
    for (const [body, status, message] of cases) {
      const r = await answer(w.bank, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body).toMatchObject({ statusCode: status, success: false, message });
    }
    // An intent of another merchant for the same customer is not this merchant's.
    const other = await t.participant('merchant');
    const r = await answer(w.bank, { ...base, entityId: other.id });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Billing intent not found');
    expect(await snapshot(null, intentId)).toEqual(before);
  });

  it('approve_recurring for an untrusted merchant is 400; OK once the provider trusts it; 400 again after un-trust', async () => {
    const w = await world();
    const [c] = w.customers;
    const intentId = await intentDelivered(w);
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0], customerDecision: 'approve_recurring' };
    const before = await snapshot(null, intentId);
    const refused = await answer(w.bank, base);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ statusCode: 400, success: false, message: 'approve_recurring requires a trusted merchant' });
    expect(await snapshot(null, intentId)).toEqual(before);
    expect(before.intent?.status).toBe('open');

    expect((await trust(w, true)).status).toBe(200);
    const ok = await answer(w.bank, base);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.decision).toBe('approve_recurring');
    const ev = await waitEvent(w.merchantHook, 'billing.intent.response', (d) => d.intentId === intentId);
    expect(ev.data).toMatchObject({
      decision: 'approve_recurring',
      customerAction: 'approved',
      agreementPhrase: ok.body.data.agreementPhrase,
    });

    // Un-trusted again: the bank can no longer set approve_recurring, by answer or by PUT.
    expect((await trust(w, false)).status).toBe(200);
    const id = ok.body.data.id;
    const put = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, {
      key: w.bank.apiKey,
      body: { customerDecision: 'approve_recurring' },
    });
    expect(put.status).toBe(400);
    expect(put.body.message).toBe('approve_recurring requires a trusted merchant');
    await intentDelivered(w);
    const again = await answer(w.bank, base);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('approve_recurring requires a trusted merchant');
    expect((await getItem<DecisionItem>(decisionKey(id)))?.version).toBe(1);
  });

  it('bad bodies are 400 Invalid request parameters and write nothing', async () => {
    const w = await world();
    const [c] = w.customers;
    const intentId = await intentDelivered(w);
    const base = { customerId: c!.id, entityId: w.merchant.id, lookupPhrase: w.phrases[0], customerDecision: 'approve_once' };
    const before = await snapshot(null, intentId);
    const { customerDecision: _d, ...noDecision } = base;
    const bodies: unknown[] = [
      {},
      noDecision,
      { ...base, customerDecision: 'approve' },
      { ...base, customerDecision: 'APPROVE_ONCE' },
      { ...base, customerId: '' },
      { ...base, entityId: 42 },
      { ...base, lookupPhrase: '' },
      { ...base, spendingLimits: { daily: -5 } },
      { ...base, spendingLimits: { daily: 0 } },
      { ...base, spendingLimits: { daily: 10.005 } },
      { ...base, spendingLimits: { daily: '100' } },
      { ...base, spendingLimits: { yearly: -100 } },
      { ...base, spendingLimits: { hourly: 100 } },
      { ...base, maxPayments: 0 },
      { ...base, channel: 'fax' },
      { ...base, validFrom: 'tomorrow' },
      { ...base, validFrom: '2030-01-02T00:00:00Z', validTo: '2030-01-01T00:00:00Z' },
      { ...base, spendingLimits: [100] },
      { ...base, blockMerchant: 'yes' },
      { ...base, decision: 'approve_once' },
      { ...base, intentId: '' },
    ];
    for (const body of bodies) {
      const r = await answer(w.bank, body as Record<string, unknown>);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
    }
    expect(await snapshot(null, intentId)).toEqual(before);
  });

  it('merchants and providers may not answer intents (403)', async () => {
    const w = await world();
    const r = await t.call('POST', '/v1/billing/intent-response', { key: w.merchant.apiKey, body: {} });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('Forbidden for this participant type');
  });
});

describe('decision reads and the bank PUT: isolation and validation', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let decisions: { id: string; agreementPhrase: string; customerId: string }[];

  beforeAll(async () => {
    w = await world(4);
    decisions = [];
    for (let i = 0; i < 4; i++) {
      await intentDelivered(w, i);
      const r = await answer(w.bank, {
        customerId: w.customers[i]!.id,
        entityId: w.merchant.id,
        lookupPhrase: w.phrases[i],
        customerDecision: i === 3 ? 'deny' : 'approve_once',
      });
      expect(r.status).toBe(200);
      decisions.push(r.body.data);
      await sleep(5); // distinct createdAt for a deterministic order
    }
  });

  it('lists newest first and pages with limit/skip; total counts every match', async () => {
    const all = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey });
    expect(all.body.total).toBe(4);
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([...decisions].reverse().map((d) => d.id));
    const page = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query: { limit: 2, skip: 1 } });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(4);
    expect(page.body.data.map((d: { id: string }) => d.id)).toEqual([decisions[2]!.id, decisions[1]!.id]);
    const past = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query: { skip: 10 } });
    expect(past.body).toMatchObject({ data: [], total: 4 });

    const bank = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey, query: { limit: 3 } });
    expect(bank.body.total).toBe(4);
    expect(bank.body.data).toHaveLength(3);
    const denied = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey, query: { decision: 'deny' } });
    expect(denied.body.total).toBe(1);
    expect(denied.body.data[0].id).toBe(decisions[3]!.id);
    const byCustomer = await t.call('GET', '/v1/bank/customer-decisions', {
      key: w.bank.apiKey,
      query: { customerId: decisions[1]!.customerId },
    });
    expect(byCustomer.body.data.map((d: { id: string }) => d.id)).toEqual([decisions[1]!.id]);
    const byPair = await t.call('GET', '/v1/bank/customer-decisions', {
      key: w.bank.apiKey,
      query: { customerId: decisions[1]!.customerId, entityId: w.merchant.id },
    });
    expect(byPair.body).toMatchObject({ total: 1, data: [{ id: decisions[1]!.id }] });
    const byMerchant = await t.call('GET', '/v1/bank/customer-decisions', {
      key: w.bank.apiKey,
      query: { entityId: w.merchant.id, decision: 'approve_once' },
    });
    expect(byMerchant.body.total).toBe(3);
  });

  it("the bank's list names each customer and merchant, and takes one decision by its id", async () => {
    const all = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey });
    const c1 = w.customers[1]!;
    const listed = all.body.data.find((d: { id: string }) => d.id === decisions[1]!.id);
    expect(listed).toMatchObject({
      customer: { name: expect.stringMatching(/^Ada Obi\d+$/), email: c1.email },
      merchantName: w.merchant.name,
    });
    const byId = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey, query: { id: decisions[1]!.id } });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({
      total: 1,
      hasMore: false,
      data: [{ id: decisions[1]!.id, customerId: c1.id, customer: { email: c1.email } }],
    });
    // With filters it must also match; another bank's, a malformed or an unknown id: nothing.
    const mismatch = await t.call('GET', '/v1/bank/customer-decisions', {
      key: w.bank.apiKey,
      query: { id: decisions[1]!.id, customerId: decisions[0]!.customerId },
    });
    expect(mismatch.body).toMatchObject({ data: [], total: 0 });
    const otherBank = await t.participant('bank');
    for (const [key, id] of [
      [otherBank.apiKey, decisions[1]!.id],
      [w.bank.apiKey, 'dec_nope'],
      [w.bank.apiKey, `dec_${'0'.repeat(22)}`],
    ] as const) {
      const r = await t.call('GET', '/v1/bank/customer-decisions', { key, query: { id } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ data: [], total: 0 });
    }
  });

  it('filters combine; a customerId with another phrase matches nothing', async () => {
    const r = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { customerId: decisions[0]!.customerId, agreementPhrase: decisions[1]!.agreementPhrase },
    });
    expect(r.body).toMatchObject({ data: [], total: 0 });
    const both = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { customerId: decisions[0]!.customerId, agreementPhrase: decisions[0]!.agreementPhrase, lookupPhrase: w.phrases[0]! },
    });
    expect(both.body.total).toBe(1);
    const mixed = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { customerId: decisions[0]!.customerId, lookupPhrase: w.phrases[1]! },
    });
    expect(mixed.body.total).toBe(0);
  });

  it('a tampered agreementPhrase or one of another merchant matches nothing; their decisions are 404', async () => {
    const phrase = decisions[0]!.agreementPhrase;
    const i = Math.floor(phrase.length / 2);
    const tampered = phrase.slice(0, i) + (phrase[i] === 'A' ? 'B' : 'A') + phrase.slice(i + 1);
    for (const agreementPhrase of [tampered, phrase.slice(0, -3), `${phrase}x`, 'ap_garbage', 'garbage']) {
      const r = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query: { agreementPhrase } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ data: [], total: 0 });
    }

    // Another merchant with its own decision with the SAME customer (same bank).
    const other = await t.participant('merchant');
    const otherPhrase = await lookupPhrase(other, w.customers[0]!, w.bank);
    expect(otherPhrase).not.toBe(w.phrases[0]);
    const sent = await intent(other, [otherPhrase]);
    expect(sent.status).toBe(200);
    const theirs = await answer(w.bank, {
      customerId: w.customers[0]!.id,
      entityId: other.id,
      lookupPhrase: otherPhrase,
      customerDecision: 'approve_once',
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.id).not.toBe(decisions[0]!.id);

    // Each merchant's phrase means nothing to the other.
    const mine = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { agreementPhrase: theirs.body.data.agreementPhrase },
    });
    expect(mine.body).toMatchObject({ data: [], total: 0 });
    const theirView = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: other.apiKey,
      query: { agreementPhrase: decisions[0]!.agreementPhrase },
    });
    expect(theirView.body).toMatchObject({ data: [], total: 0 });
    // A lookupPhrase of another merchant matches nothing either.
    const byPhrase = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: w.merchant.apiKey,
      query: { lookupPhrase: otherPhrase },
    });
    expect(byPhrase.body).toMatchObject({ data: [], total: 0 });
    // Lists hold only one's own.
    const otherList = await t.call('GET', '/v1/merchant/customer-decisions', { key: other.apiKey });
    expect(otherList.body.data.map((d: { id: string }) => d.id)).toEqual([theirs.body.data.id]);
    // Single reads: the other merchant's decision is 404.
    for (const [key, id] of [
      [w.merchant.apiKey, theirs.body.data.id],
      [other.apiKey, decisions[0]!.id],
    ]) {
      const r = await t.call('GET', `/v1/customer-decisions/${id}`, { key });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer decision not found' });
    }
  });

  it('unknown or malformed decision ids are 404 Customer decision not found', async () => {
    for (const id of ['dec_0000000000000000000000', 'dec_nope', 'nothing', encodeURIComponent(decisions[0]!.agreementPhrase)]) {
      const r = await t.call('GET', `/v1/customer-decisions/${id}`, { key: w.merchant.apiKey });
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Customer decision not found');
      const p = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, { key: w.bank.apiKey, body: { blockMerchant: true } });
      expect(p.status).toBe(404);
      expect(p.body.message).toBe('Customer decision not found');
    }
  });

  it("another bank neither sees nor changes this bank's customers' decisions", async () => {
    const otherBank = await t.participant('bank');
    const list = await t.call('GET', '/v1/bank/customer-decisions', { key: otherBank.apiKey });
    expect(list.body).toMatchObject({ data: [], total: 0 });
    const pair = await t.call('GET', '/v1/bank/customer-decisions', {
      key: otherBank.apiKey,
      query: { customerId: decisions[0]!.customerId, entityId: w.merchant.id },
    });
    expect(pair.body).toMatchObject({ data: [], total: 0 });
    const before = await getItem<DecisionItem>(decisionKey(decisions[0]!.id));
    const events = await scanCount('EVT#');
    const put = await t.call('PUT', `/v1/bank/customer-decisions/${decisions[0]!.id}`, {
      key: otherBank.apiKey,
      body: { customerDecision: 'deny' },
    });
    expect(put.status).toBe(404);
    expect(put.body).toMatchObject({ statusCode: 404, success: false, message: 'Customer decision not found' });
    expect(await getItem<DecisionItem>(decisionKey(decisions[0]!.id))).toEqual(before);
    expect(await scanCount('EVT#')).toBe(events);
  });

  it('bad queries are 400 Invalid query parameters', async () => {
    const merchantQueries: Record<string, string>[] = [
      { limit: '0' },
      { limit: '101' },
      { limit: 'ten' },
      { limit: '1.5' },
      { skip: '-1' },
      { customerid: 'cus_x' },
      { agreementPhrase: '' },
      { entityId: w.merchant.id },
    ];
    for (const query of merchantQueries) {
      const r = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid query parameters' });
    }
    const ok = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.merchant.apiKey, query: { limit: '100', skip: '0' } });
    expect(ok.status).toBe(200);
    for (const query of [{ limit: '0' }, { skip: '-1' }, { decision: 'approve' }, { lookupPhrase: 'x' }] as Record<string, string>[]) {
      const r = await t.call('GET', '/v1/bank/customer-decisions', { key: w.bank.apiKey, query });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
    }
  });

  it('bad PUT bodies are 400 Invalid request parameters and change nothing', async () => {
    const id = decisions[0]!.id;
    const before = await getItem<DecisionItem>(decisionKey(id));
    for (const body of [
      {},
      { customerDecision: 'approve' },
      { spendingLimits: { daily: -1 } },
      { spendingLimits: { single: 1.001 } },
      { blockMerchant: 'true' },
      { blockMerchant: true, note: 'x' },
      { lookupPhrase: 'x' },
    ]) {
      const r = await t.call('PUT', `/v1/bank/customer-decisions/${id}`, { key: w.bank.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
    }
    expect(await getItem<DecisionItem>(decisionKey(id))).toEqual(before);
  });

  it('participant kinds: merchant reads are for merchants, bank reads and PUT for banks', async () => {
    const r1 = await t.call('GET', '/v1/bank/customer-decisions', { key: w.merchant.apiKey });
    expect(r1.status).toBe(403);
    const r2 = await t.call('GET', '/v1/merchant/customer-decisions', { key: w.bank.apiKey });
    expect(r2.status).toBe(403);
    const r3 = await t.call('GET', `/v1/customer-decisions/${decisions[0]!.id}`, { key: w.bank.apiKey });
    expect(r3.status).toBe(403);
    const r4 = await t.call('PUT', `/v1/bank/customer-decisions/${decisions[0]!.id}`, {
      key: w.merchant.apiKey,
      body: { blockMerchant: true },
    });
    expect(r4.status).toBe(403);
  });

  it('concurrent PUTs to one decision all apply, one after another (version increments by each)', async () => {
    const id = decisions[2]!.id;
    const before = (await getItem<DecisionItem>(decisionKey(id)))!.version;
    const limits = [100, 200, 300, 400, 500];
    const results = await Promise.all(
      limits.map((daily) =>
        t.call('PUT', `/v1/bank/customer-decisions/${id}`, { key: w.bank.apiKey, body: { spendingLimits: { daily } } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const after = (await getItem<DecisionItem>(decisionKey(id)))!;
    expect(after.version).toBe(before + limits.length);
    // The stored state is the last writer's (one of them), whole.
    expect(limits.map((x) => x * 100)).toContain(after.spendingLimits.daily);
  });
});
