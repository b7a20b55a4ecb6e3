/**
 * The sandbox's simulated bank, end to end on the real local stack: the operator
 * creates a bank with `simulated: true`, which onboards the magic customers of
 * functions/sandbox/magic.ts; merchants find them by email or device; the simulated bank
 * answers `billing.intent` and `billing.request` by itself, through the due kind
 * `sandbox.bank` driven by `t.app.tick(date)` (SANDBOX_BANK_DELAY_SECONDS = 1 here), and the
 * merchant (and its provider) receive `billing.intent.response` / `billing.response` on a
 * real webhook receiver. Every magic outcome is exercised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextBillingDate } from '../../functions/domain/schedule-dates';
import { eventKey } from '../../functions/webhooks/delivery-store';
import { MAGIC_CUSTOMERS, magicView } from '../../functions/sandbox/magic';
import { intentKey, type IntentItem } from '../../functions/decisions/intents';
import { getItem } from '../../functions/platform/table';
import type { TestApp } from '../support/app';
import { letSimulatedBankAnswer, magicEmail, SANDBOX_BANK_DELAY_MS, startSandboxWorld, stopSandboxWorld } from '../support/sandbox-world';
import { getBill, ledgerProblems, scanPrefix } from '../support/billing-table';
import {
  bill,
  events,
  lookupPhraseFor,
  merchantWithTrust,
  onboardCustomer,
  inCreationOrder,
  pay,
  receivedEvents,
  webhook,
  type Hook,
  type Party,
  type WebhookEvent,
} from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { scheduleBody } from '../support/recurring-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
/** The simulated bank every test uses (the oldest: it holds the exact device ids). */
let sim: Party;
let simHook: Hook;

const DELAY_MS = SANDBOX_BANK_DELAY_MS;

beforeAll(async () => {
  ({ t, rx, sim, simHook } = await startSandboxWorld());
});
afterAll(() => stopSandboxWorld({ t, rx }));

const email = magicEmail;

/** Let the simulated bank answer what is due: a tick past its delay, then the queues. */
const bankAnswers = () => letSimulatedBankAnswer(t);

interface MerchantSetup {
  merchant: Party;
  provider?: Party;
  hook: Hook;
  providerHook?: Hook;
}

async function merchantSetup(
  opts: { trusted?: boolean; trustLevel?: 'basic' | 'enhanced' | 'premium'; provider?: boolean } = {},
): Promise<MerchantSetup> {
  const { merchant, provider } = await merchantWithTrust(t, opts);
  const hook = await webhook(t, rx, merchant, { label: 'merchant' });
  const providerHook = provider ? await webhook(t, rx, provider, { label: 'provider' }) : undefined;
  return { merchant, provider, hook, providerHook };
}

/** Merchant sends one intent for several magic customers (by email lookup at `bankId`); phrase per local part. */
async function sendIntents(m: MerchantSetup, locals: string[], bankId = sim.id): Promise<Map<string, string>> {
  const phrases = new Map<string, string>();
  for (const l of locals) phrases.set(l, await lookupPhraseFor(t, m.merchant, email(l), bankId));
  const r = await t.call('POST', '/v1/billing/intent', {
    key: m.merchant.apiKey,
    body: { lookupPhrases: [...phrases.values()], currency: 'NGN', description: 'Sandbox membership' },
  });
  expect(r.status).toBe(200);
  return phrases;
}

const responseFor = async (m: MerchantSetup, phrase: string): Promise<WebhookEvent> =>
  (await events(rx, m.hook, 'billing.intent.response', 1, (e) => e.data.lookupPhrase === phrase))[0]!;

/** An agreementPhrase of the merchant for a magic customer, answered by the simulated bank. */
async function simulatedAgreement(
  m: MerchantSetup,
  local: string,
): Promise<{ agreementPhrase: string; lookupPhrase: string; customerId: string }> {
  const phrases = await sendIntents(m, [local]);
  await bankAnswers();
  const e = await responseFor(m, phrases.get(local)!);
  expect(e.data.customerAction).toBe('approved');
  return { agreementPhrase: e.data.agreementPhrase, lookupPhrase: phrases.get(local)!, customerId: e.data.customerId };
}

const billingResponse = async (m: MerchantSetup, reference: string) =>
  (await events(rx, m.hook, 'billing.response', 1, (e) => e.data.reference === reference))[0]!;

describe('creating a simulated bank seeds its magic customers', () => {
  it('201 with simulated: true; customers onboarded through the batch path; devices linked; listed by GET /v1/sandbox/customers', async () => {
    const m = await merchantSetup();
    const list = await t.call('GET', '/v1/sandbox/customers', { key: m.merchant.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ statusCode: 200, success: true, message: 'Sandbox customers' });
    expect(list.body.data.emailDomain).toBe('sandbox.idpay.test');
    expect(list.body.data.answerDelaySeconds).toBe(1);
    expect(list.body.data.customers).toEqual(MAGIC_CUSTOMERS.map(magicView));
    const mine = list.body.data.banks.find((b: { bankId: string }) => b.bankId === sim.id);
    expect(mine).toEqual({
      bankId: sim.id,
      bankName: sim.name,
      createdAt: expect.any(String),
      deviceIds: Object.fromEntries(MAGIC_CUSTOMERS.map((c) => [c.outcome, magicView(c).deviceId])),
    });
    // Documented values (README): a few spelled out literally.
    const byOutcome = new Map(list.body.data.customers.map((c: { outcome: string }) => [c.outcome, c]));
    expect(byOutcome.get('recurring_limits')).toMatchObject({
      email: 'recurring.limits@sandbox.idpay.test',
      deviceId: 'sandbox-device-recurring-limits',
      intentResponse: {
        customerDecision: 'approve_recurring',
        spendingLimits: { single: 50000, daily: 100000, monthly: 1000000 },
        blockMerchant: false,
      },
      debitResponse: 'approve',
    });
    expect(byOutcome.get('approve_once')).toMatchObject({
      email: 'approve.once@sandbox.idpay.test',
      deviceId: 'sandbox-device-approve-once',
    });

    // The customers are the bank's own, created by a customer batch (same path as POST /v1/bank/customers).
    const customers = (await scanPrefix<{ bankId: string; email: string; batchId: string; country: string }>('CUS#')).filter(
      (c) => c.bankId === sim.id,
    );
    expect(customers.map((c) => c.email).sort()).toEqual(MAGIC_CUSTOMERS.map((c) => email(c.local)).sort());
    const batchIds = new Set(customers.map((c) => c.batchId));
    expect(batchIds.size).toBe(1);
    const batch = await t.call('GET', `/v1/bank/customers/batches/${[...batchIds][0]}`, { key: sim.apiKey });
    expect(batch.status).toBe(200);
    expect(batch.body.data.summary).toEqual({
      total: MAGIC_CUSTOMERS.length,
      successful: MAGIC_CUSTOMERS.length,
      failed: 0,
      duplicates: 0,
      invalidData: 0,
    });

    // Every magic email is discoverable by any merchant.
    for (const c of MAGIC_CUSTOMERS) {
      const r = await t.call('GET', '/v1/customer/banks', { key: m.merchant.apiKey, query: { email: email(c.local) } });
      expect(r.status).toBe(200);
      expect(r.body.data.banks.map((b: { bankId: string }) => b.bankId)).toContain(sim.id);
    }
  });

  it('device lookup: the exact device ids belong to the oldest simulated bank; a later one gets <id>.<bankId>; lookup needs device permission', async () => {
    const trusted = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const untrusted = await merchantSetup();
    const second = await t.participant('bank', { simulated: true });

    const viaEmail = await lookupPhraseFor(t, trusted.merchant, email('approve.once'), sim.id);
    const dev = await t.call('POST', '/v1/customer/device/lookup', {
      key: trusted.merchant.apiKey,
      body: { deviceId: 'sandbox-device-approve-once' },
    });
    expect(dev.status).toBe(200);
    expect(dev.body.data).toEqual({ lookupPhrase: viaEmail });

    const list = await t.call('GET', '/v1/sandbox/customers', { key: trusted.merchant.apiKey });
    const b2 = list.body.data.banks.find((b: { bankId: string }) => b.bankId === second.id);
    expect(b2.deviceIds.approve_once).toBe(`sandbox-device-approve-once.${second.id}`);
    const viaEmail2 = await lookupPhraseFor(t, trusted.merchant, email('approve.once'), second.id);
    const dev2 = await t.call('POST', '/v1/customer/device/lookup', {
      key: trusted.merchant.apiKey,
      body: { deviceId: b2.deviceIds.approve_once },
    });
    expect(dev2.status).toBe(200);
    expect(dev2.body.data).toEqual({ lookupPhrase: viaEmail2 });
    expect(viaEmail2).not.toBe(viaEmail);
    // The banks are listed oldest first.
    const ids = list.body.data.banks.map((b: { bankId: string }) => b.bankId);
    expect(ids.indexOf(sim.id)).toBeLessThan(ids.indexOf(second.id));

    const refused = await t.call('POST', '/v1/customer/device/lookup', {
      key: untrusted.merchant.apiKey,
      body: { deviceId: 'sandbox-device-approve-once' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Device lookup not permitted for this merchant');
  });

  it('only a bank can be simulated: 400, nothing written; banks and providers cannot list sandbox customers (403)', async () => {
    const before = (await scanPrefix('PART#')).length;
    for (const type of ['merchant', 'provider']) {
      const r = await t.call('POST', '/v1/operator/participants', {
        key: t.operatorKey,
        body: { type, name: 'X', email: `sim-${type}-${Date.now()}@example.com`, simulated: true },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ message: 'Invalid request parameters', errors: [{ path: 'simulated' }] });
    }
    expect((await scanPrefix('PART#')).length).toBe(before);
    const bank = await t.call('GET', '/v1/sandbox/customers', { key: sim.apiKey });
    expect(bank.status).toBe(403);
    const noKey = await t.call('GET', '/v1/sandbox/customers');
    expect(noKey.status).toBe(401);
  });
});

describe('intents: every magic customer, end to end through billing.intent.response', () => {
  const expected: Record<
    string,
    { decision: string; spendingLimits: Record<string, number>; blockMerchant: boolean; customerAction: string }
  > = {
    'approve.recurring': { decision: 'approve_recurring', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    'recurring.limits': {
      decision: 'approve_recurring',
      spendingLimits: { single: 50000, daily: 100000, monthly: 1000000 },
      blockMerchant: false,
      customerAction: 'approved',
    },
    'approve.two.payments': { decision: 'approve_recurring', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    'approve.valid.one.minute': { decision: 'approve_recurring', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    'approve.once': { decision: 'approve_once', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    deny: { decision: 'deny', spendingLimits: {}, blockMerchant: false, customerAction: 'declined' },
    suspended: { decision: 'suspended', spendingLimits: {}, blockMerchant: false, customerAction: 'declined' },
    'block.merchant': { decision: 'deny', spendingLimits: {}, blockMerchant: true, customerAction: 'declined' },
    'debit.declined': { decision: 'approve_recurring', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    'insufficient.funds': { decision: 'approve_recurring', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
    'debit.no.answer': { decision: 'approve_once', spendingLimits: {}, blockMerchant: false, customerAction: 'approved' },
  };

  it('trusted merchant under a provider: each answer reaches the merchant and its provider, signed, with an agreementPhrase exactly when approved', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const phrases = await sendIntents(m, Object.keys(expected));
    // The simulated bank is notified like any bank.
    const intents = await events(rx, simHook, 'billing.intent', phrases.size, (e) => e.data.entityId === m.merchant.id);
    expect(intents).toHaveLength(phrases.size);
    // Nothing is answered before a tick.
    expect(receivedEvents(rx, m.hook, 'billing.intent.response')).toHaveLength(0);
    await bankAnswers();
    for (const [local, phrase] of phrases) {
      const e = await responseFor(m, phrase);
      const want = expected[local]!;
      expect(e.data).toMatchObject({ entityId: m.merchant.id, lookupPhrase: phrase, ...want });
      expect(e.data.intentId).toMatch(/^int_/);
      if (want.customerAction === 'approved') expect(e.data.agreementPhrase).toMatch(/^ap_/);
      else expect(e.data.agreementPhrase).toBeNull();
      const p = (await events(rx, m.providerHook!, 'billing.intent.response', 1, (x) => x.data.lookupPhrase === phrase))[0]!;
      expect(p.data).toEqual(e.data);
      // The decision is readable by the merchant like any decision.
      const d = await t.call('GET', `/v1/customer-decisions/${e.data.decisionId}`, { key: m.merchant.apiKey });
      expect(d.status).toBe(200);
      expect(d.body.data).toMatchObject({
        decision: want.decision,
        blockMerchant: want.blockMerchant,
        spendingLimits: want.spendingLimits,
      });
    }
    // Each delivery is signed (a real receiver check happens in webhooks tests; here: the header is there).
    const delivery = rx.received(m.hook.path).find((r) => JSON.parse(r.body).type === 'billing.intent.response')!;
    expect(delivery.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    // The events left the due index (answered once).
    for (const i of intents) expect((await getItem(eventKey(i.id)))?.dueSk).toBeUndefined();
    // Another tick changes nothing and sends nothing more.
    await bankAnswers();
    expect(receivedEvents(rx, m.hook, 'billing.intent.response')).toHaveLength(phrases.size);
  });

  it('approve_recurring for an untrusted merchant falls back to approve_once (same limits)', async () => {
    const m = await merchantSetup();
    const phrases = await sendIntents(m, ['approve.recurring', 'recurring.limits', 'debit.declined']);
    await bankAnswers();
    expect((await responseFor(m, phrases.get('approve.recurring')!)).data).toMatchObject({
      decision: 'approve_once',
      spendingLimits: {},
      customerAction: 'approved',
    });
    expect((await responseFor(m, phrases.get('recurring.limits')!)).data).toMatchObject({
      decision: 'approve_once',
      spendingLimits: { single: 50000, daily: 100000, monthly: 1000000 },
      customerAction: 'approved',
    });
    expect((await responseFor(m, phrases.get('debit.declined')!)).data).toMatchObject({
      decision: 'approve_once',
      customerAction: 'approved',
    });
  });

  it('no.answer never answers: the intent stays open, no decision, no event', async () => {
    const m = await merchantSetup();
    const phrases = await sendIntents(m, ['no.answer']);
    const [intent] = await events(rx, simHook, 'billing.intent', 1, (e) => e.data.entityId === m.merchant.id);
    await bankAnswers();
    await t.app.tick(new Date(Date.now() + 3_600_000));
    await t.app.settle();
    await sleep(300);
    expect(receivedEvents(rx, m.hook, 'billing.intent.response')).toHaveLength(0);
    expect((await getItem<IntentItem>(intentKey(intent!.data.intentId)))!.status).toBe('open');
    const d = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: m.merchant.apiKey,
      query: { lookupPhrase: phrases.get('no.answer')! },
    });
    expect(d.status).toBe(200);
    expect(d.body.total).toBe(0);
    expect((await getItem(eventKey(intent!.id)))?.dueSk).toBeUndefined();
  });

  it('answers after SANDBOX_BANK_DELAY_SECONDS: a tick before the delay does nothing', async () => {
    const m = await merchantSetup();
    const phrases = await sendIntents(m, ['approve.once']);
    const [intent] = await events(rx, simHook, 'billing.intent', 1, (e) => e.data.entityId === m.merchant.id);
    const created = Date.parse(intent!.createdAt);
    await t.app.tick(new Date(created + DELAY_MS - 300));
    await t.app.settle();
    expect((await getItem<IntentItem>(intentKey(intent!.data.intentId)))!.status).toBe('open');
    await t.app.tick(new Date(created + DELAY_MS));
    await t.app.settle();
    expect((await responseFor(m, phrases.get('approve.once')!)).data.decision).toBe('approve_once');
  });

  it('a customer the simulated bank onboarded itself (not magic) is left to the bank: it answers with its own key', async () => {
    const m = await merchantSetup();
    const c = await onboardCustomer(t, sim);
    const phrase = await lookupPhraseFor(t, m.merchant, c.email, sim.id);
    const r = await t.call('POST', '/v1/billing/intent', {
      key: m.merchant.apiKey,
      body: { lookupPhrases: [phrase], currency: 'NGN', description: 'x' },
    });
    expect(r.status).toBe(200);
    await bankAnswers();
    await sleep(300);
    expect(receivedEvents(rx, m.hook, 'billing.intent.response')).toHaveLength(0);
    const answered = await t.call('POST', '/v1/billing/intent-response', {
      key: sim.apiKey,
      body: { customerId: c.customerId, entityId: m.merchant.id, lookupPhrase: phrase, customerDecision: 'approve_once' },
    });
    expect(answered.status).toBe(200);
    expect((await responseFor(m, phrase)).data.decision).toBe('approve_once');
  });
});

describe('debits: every magic customer, end to end through billing.response', () => {
  it('approve.recurring: a billing without approval is paid by the bank (approve_recurring), merchant and provider notified', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'approve.recurring');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 1500);
    expect(r.status).toBe(201);
    const el = r.body[0];
    expect(el.requiresApproval).toBe(false);
    const [req] = await events(rx, simHook, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data.requiresApproval).toBe(false);
    await bankAnswers();
    const res = await billingResponse(m, el.reference);
    expect(res.data).toEqual({
      billingRequestId: el.billingRequestId,
      reference: el.reference,
      entityId: m.merchant.id,
      customerId: a.customerId,
      amount: 1500,
      currency: 'NGN',
      status: 'succeeded',
      customerAction: 'approved',
      bankTransactionId: `SBX-${el.billingRequestId}`,
    });
    const p = (await events(rx, m.providerHook!, 'billing.response', 1, (e) => e.data.reference === el.reference))[0]!;
    expect(p.data).toEqual(res.data);
    expect(await getBill(el.billingRequestId)).toMatchObject({ status: 'succeeded', bankAction: 'approve_recurring' });
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
  });

  it('approve.recurring after the provider un-trusted the merchant (DESIGN 8.1): the billing asks for approval and the simulated bank approves it once', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'approve.recurring');
    const lowered = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: m.provider!.apiKey,
      body: { entityId: m.merchant.id, trusted: false },
    });
    expect(lowered.status).toBe(200);
    const r = await bill(t, m.merchant, [a.agreementPhrase], 1500);
    expect(r.status).toBe(201);
    const el = r.body[0];
    expect(el.requiresApproval).toBe(true);
    expect(typeof el.expiresAt).toBe('string');
    const [req] = await events(rx, simHook, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data).toMatchObject({ requiresApproval: true, expiresAt: el.expiresAt });
    await bankAnswers();
    const res = await billingResponse(m, el.reference);
    expect(res.data).toMatchObject({ status: 'succeeded', customerAction: 'approved' });
    expect(await getBill(el.billingRequestId)).toMatchObject({ status: 'succeeded', bankAction: 'approve_once', requiresApproval: true });
  });

  it('recurring.limits: the limits are enforced (single 50,000, daily 100,000) and debits within them paid', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'recurring.limits');
    const over = await bill(t, m.merchant, [a.agreementPhrase], 50_000.01);
    expect(over.status).toBe(403);
    expect(over.body[0].message).toBe("Billing exceeds the customer's spending limits");
    const refs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await bill(t, m.merchant, [a.agreementPhrase], 50_000);
      expect(r.status).toBe(201);
      refs.push(r.body[0].reference);
    }
    const third = await bill(t, m.merchant, [a.agreementPhrase], 1);
    expect(third.status).toBe(403);
    expect(third.body[0].message).toBe("Billing exceeds the customer's spending limits");
    await bankAnswers();
    for (const ref of refs)
      expect((await billingResponse(m, ref)).data).toMatchObject({ status: 'succeeded', amount: 50000, customerAction: 'approved' });
  });

  it('approve.two.payments: the consent allows 2 payments; the third billing is refused with the exact message', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'approve.two.payments');
    const d = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: m.merchant.apiKey,
      query: { agreementPhrase: a.agreementPhrase },
    });
    expect(d.body.data[0]).toMatchObject({ maxPayments: 2, channel: 'app', customerAcceptedAt: expect.any(String) });
    expect('validTo' in d.body.data[0]).toBe(false); // not set: absent
    for (let i = 0; i < 2; i++) expect((await bill(t, m.merchant, [a.agreementPhrase], 100)).status).toBe(201);
    const third = await bill(t, m.merchant, [a.agreementPhrase], 100);
    expect(third.status).toBe(403);
    expect(third.body[0]).toMatchObject({ message: 'Customer approval has no payments left', code: 'approval_no_payments_left' });
  });

  it('approve.valid.one.minute: the consent is valid for 60 s from the answer (validFrom, validTo on the decision)', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'approve.valid.one.minute');
    const d = await t.call('GET', '/v1/merchant/customer-decisions', {
      key: m.merchant.apiKey,
      query: { agreementPhrase: a.agreementPhrase },
    });
    const { validFrom, validTo } = d.body.data[0];
    expect(Date.parse(validTo) - Date.parse(validFrom)).toBe(60_000);
    expect(Math.abs(Date.parse(validFrom) - Date.now())).toBeLessThan(30_000);
    expect((await bill(t, m.merchant, [a.agreementPhrase], 100)).status).toBe(201);
  });

  it('approve.once: each billing needs approval; the bank approves it (approve_once)', async () => {
    const m = await merchantSetup();
    const a = await simulatedAgreement(m, 'approve.once');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 250.5);
    expect(r.status).toBe(201);
    expect(r.body[0].requiresApproval).toBe(true);
    await bankAnswers();
    const res = await billingResponse(m, r.body[0].reference);
    expect(res.data).toMatchObject({
      status: 'succeeded',
      amount: 250.5,
      customerAction: 'approved',
      bankTransactionId: `SBX-${r.body[0].billingRequestId}`,
    });
    expect(await getBill(r.body[0].billingRequestId)).toMatchObject({ bankAction: 'approve_once' });
  });

  it('debit.declined: the agreement is approved but every debit is declined (deny)', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'debit.declined');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 99);
    expect(r.status).toBe(201);
    await bankAnswers();
    const res = await billingResponse(m, r.body[0].reference);
    expect(res.data).toMatchObject({ status: 'declined', customerAction: 'declined', reason: 'customer_denied', bankTransactionId: null });
    const p = await t.call('POST', '/v1/customer/pay', {
      key: m.merchant.apiKey,
      body: { lookupPhrases: [a.lookupPhrase], amount: 5, currency: 'NGN', description: 'x' },
    });
    expect(p.status).toBe(201);
    await bankAnswers();
    expect((await billingResponse(m, p.body[0].reference)).data).toMatchObject({ status: 'declined', reason: 'customer_denied' });
  });

  it('insufficient.funds: every debit is declined by the bank (reason insufficient_funds)', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const a = await simulatedAgreement(m, 'insufficient.funds');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 42);
    expect(r.status).toBe(201);
    await bankAnswers();
    const res = await billingResponse(m, r.body[0].reference);
    expect(res.data).toMatchObject({
      status: 'declined',
      customerAction: 'declined',
      reason: 'insufficient_funds',
      bankTransactionId: null,
    });
    expect(res.data.willRetry).toBeUndefined(); // not a recurring run
    expect(await getBill(r.body[0].billingRequestId)).toMatchObject({ bankAction: 'deny', reason: 'insufficient_funds' });
  });

  it('debit.no.answer: the debit is never answered; the approval expires through the tick', async () => {
    const m = await merchantSetup();
    const a = await simulatedAgreement(m, 'debit.no.answer');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 10);
    expect(r.status).toBe(201);
    const el = r.body[0];
    await bankAnswers();
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
    await t.app.tick(new Date(Date.parse(el.expiresAt) + 1000));
    await t.app.settle();
    const res = await billingResponse(m, el.reference);
    expect(res.data).toMatchObject({ status: 'expired', customerAction: 'declined', reason: 'approval_expired' });
  });

  it('no.answer: a one-time payment is never answered and expires through the tick', async () => {
    const m = await merchantSetup();
    const phrase = await lookupPhraseFor(t, m.merchant, email('no.answer'), sim.id);
    const r = await pay(t, m.merchant, [phrase], 20);
    expect(r.status).toBe(201);
    const el = r.body[0];
    await bankAnswers();
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
    await t.app.tick(new Date(Date.parse(el.expiresAt) + 1000));
    await t.app.settle();
    expect((await billingResponse(m, el.reference)).data).toMatchObject({
      status: 'expired',
      reason: 'approval_expired',
      customerAction: 'declined',
    });
  });

  it('approve.once: a one-time payment is approved', async () => {
    const m = await merchantSetup();
    const phrase = await lookupPhraseFor(t, m.merchant, email('approve.once'), sim.id);
    const r = await pay(t, m.merchant, [phrase], 75);
    expect(r.status).toBe(201);
    await bankAnswers();
    expect((await billingResponse(m, r.body[0].reference)).data).toMatchObject({ status: 'succeeded', customerAction: 'approved' });
  });

  it('deny and suspended: bills are refused (no approval); one-time payments reach the bank and are declined (customer_denied / customer_suspended)', async () => {
    const m = await merchantSetup();
    const phrases = await sendIntents(m, ['deny', 'suspended']);
    await bankAnswers();
    for (const [local, reason] of [
      ['deny', 'customer_denied'],
      ['suspended', 'customer_suspended'],
    ] as const) {
      const e = await responseFor(m, phrases.get(local)!);
      expect(e.data.agreementPhrase).toBeNull();
      const r = await pay(t, m.merchant, [phrases.get(local)!], 30);
      expect(r.status).toBe(201);
      await bankAnswers();
      expect((await billingResponse(m, r.body[0].reference)).data).toMatchObject({
        status: 'declined',
        customerAction: 'declined',
        reason,
      });
    }
  });

  it('block.merchant: after the answer every payment is refused as blocked; a payment sent before it is declined by the bank', async () => {
    const m = await merchantSetup();
    const phrase = await lookupPhraseFor(t, m.merchant, email('block.merchant'), sim.id);
    const before = await pay(t, m.merchant, [phrase], 40);
    expect(before.status).toBe(201);
    await bankAnswers();
    expect((await billingResponse(m, before.body[0].reference)).data).toMatchObject({ status: 'declined', reason: 'customer_denied' });
    await sendIntents(m, ['block.merchant']);
    await bankAnswers();
    expect((await responseFor(m, phrase)).data).toMatchObject({ blockMerchant: true, customerAction: 'declined' });
    const after = await pay(t, m.merchant, [phrase], 40);
    expect(after.status).toBe(403);
    expect(after.body[0].message).toBe('Merchant is blocked by the customer');
  });
});

describe('POST /v1/sandbox/billing-requests/{id}/expire', () => {
  it('expires a pending approval now through the expiry path (billing.response expired to merchant and provider); again: 409', async () => {
    const m = await merchantSetup({ provider: true });
    const a = await simulatedAgreement(m, 'debit.no.answer');
    const r = await bill(t, m.merchant, [a.agreementPhrase], 12);
    const el = r.body[0];
    const x = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, { key: m.merchant.apiKey });
    expect(x.status).toBe(200);
    expect(x.body).toMatchObject({
      success: true,
      message: 'Billing request expired',
      data: { billingRequestId: el.billingRequestId, reference: el.reference, status: 'expired', reason: 'approval_expired' },
    });
    const res = await billingResponse(m, el.reference);
    expect(res.data).toMatchObject({ status: 'expired', customerAction: 'declined', reason: 'approval_expired' });
    expect((await events(rx, m.providerHook!, 'billing.response', 1, (e) => e.data.reference === el.reference))[0]!.data).toEqual(res.data);
    const stored = await getBill(el.billingRequestId);
    expect(stored).toMatchObject({ status: 'expired' });
    expect(stored!.dueSk).toBeUndefined();
    const tx = await t.call('GET', '/v1/transaction-details', { key: m.merchant.apiKey, query: { reference: el.reference } });
    expect(tx.body.data.status).toBe('expired');

    const again = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, { key: m.merchant.apiKey });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      statusCode: 409,
      success: false,
      message: 'Billing request is not pending',
      code: 'billing_not_pending',
    });
  });

  it("another merchant's, unknown or malformed id: 404 Billing request not found; provider with X-Entity-Id: own merchant's only", async () => {
    const owner = await merchantSetup({ provider: true });
    const other = await merchantSetup({ provider: true });
    const a = await simulatedAgreement(owner, 'debit.no.answer');
    const el = (await bill(t, owner.merchant, [a.agreementPhrase], 13)).body[0];
    for (const id of [el.billingRequestId, 'breq_0000000000000000000000', 'nope']) {
      const r = await t.call('POST', `/v1/sandbox/billing-requests/${id}/expire`, { key: other.merchant.apiKey });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, message: 'Billing request not found' });
    }
    // The other merchant's provider, acting for its own merchant: still not found.
    const viaOther = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, {
      key: other.provider!.apiKey,
      headers: { 'X-Entity-Id': other.merchant.id },
    });
    expect(viaOther.status).toBe(404);
    expect(viaOther.body.message).toBe('Billing request not found');
    // ... or naming a merchant it does not own.
    const foreign = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, {
      key: other.provider!.apiKey,
      headers: { 'X-Entity-Id': owner.merchant.id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Merchant not found');
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
    // The owner's provider may.
    const ok = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, {
      key: owner.provider!.apiKey,
      headers: { 'X-Entity-Id': owner.merchant.id },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toBe('expired');
  });

  it('a pending billing that needs no approval (approve_recurring at a real bank): 409; bad body: 400; nothing changes', async () => {
    const m = await merchantSetup({ trusted: true, trustLevel: 'enhanced' });
    const bank = await t.participant('bank');
    const c = await onboardCustomer(t, bank);
    const phrase = await lookupPhraseFor(t, m.merchant, c.email, bank.id);
    await t.call('POST', '/v1/billing/intent', {
      key: m.merchant.apiKey,
      body: { lookupPhrases: [phrase], currency: 'NGN', description: 'x' },
    });
    const d = await t.call('POST', '/v1/billing/intent-response', {
      key: bank.apiKey,
      body: { customerId: c.customerId, entityId: m.merchant.id, lookupPhrase: phrase, customerDecision: 'approve_recurring' },
    });
    expect(d.status).toBe(200);
    const el = (await bill(t, m.merchant, [d.body.data.agreementPhrase], 10)).body[0];
    expect(el.requiresApproval).toBe(false);
    const r = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, { key: m.merchant.apiKey });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("Billing request is not awaiting the customer's approval");
    const bad = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, {
      key: m.merchant.apiKey,
      body: { now: true },
    });
    expect(bad.status).toBe(400);
    const badJson = await t.call('POST', `/v1/sandbox/billing-requests/${el.billingRequestId}/expire`, {
      key: m.merchant.apiKey,
      rawBody: '{',
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toBe('Invalid JSON body');
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
  });
});

describe('POST /v1/sandbox/settlements/run', () => {
  it("settles all of the caller's unsettled funds now (future-dated included), only the caller's; settlement.completed; again: nothing", async () => {
    const m = await merchantSetup({ provider: true });
    const other = await merchantSetup();
    const a = await simulatedAgreement(m, 'approve.once');
    const o = await simulatedAgreement(other, 'approve.once');
    const refs = [
      (await bill(t, m.merchant, [a.agreementPhrase], 1000)).body[0].reference,
      (await bill(t, m.merchant, [a.agreementPhrase], 234.56)).body[0].reference,
    ];
    const otherRef = (await bill(t, other.merchant, [o.agreementPhrase], 500)).body[0].reference;
    await bankAnswers();
    for (const ref of refs) expect((await billingResponse(m, ref)).data.status).toBe('succeeded');
    expect((await billingResponse(other, otherRef)).data.status).toBe('succeeded');
    const before = await t.call('GET', '/v1/balance/details', { key: m.merchant.apiKey });
    expect(before.body.data).toMatchObject({ unsettledBalance: 1234.56, settledBalance: 0 });

    const r = await t.call('POST', '/v1/sandbox/settlements/run', { key: m.merchant.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Settlement run completed',
      data: { settledAmount: 1234.56, remainingAmount: 0, currency: 'NGN' },
    });
    expect(r.body.data.settlements).toHaveLength(1);
    expect(r.body.data.settlements[0]).toMatchObject({ amount: 1234.56, count: 2, settlementId: expect.stringMatching(/^stl_/) });
    const after = await t.call('GET', '/v1/balance/details', { key: m.merchant.apiKey });
    expect(after.body.data).toMatchObject({ totalBalance: 1234.56, unsettledBalance: 0, settledBalance: 1234.56 });
    const [ev] = await events(rx, m.hook, 'settlement.completed');
    expect(ev!.data).toMatchObject({ entityId: m.merchant.id, amount: 1234.56, count: 2 });
    await events(rx, m.providerHook!, 'settlement.completed');

    // The other merchant's funds are untouched.
    const untouched = await t.call('GET', '/v1/balance/details', { key: other.merchant.apiKey });
    expect(untouched.body.data).toMatchObject({ unsettledBalance: 500, settledBalance: 0 });

    const again = await t.call('POST', '/v1/sandbox/settlements/run', { key: m.merchant.apiKey });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ settlements: [], settledAmount: 0, remainingAmount: 0, currency: 'NGN' });
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
    expect(await ledgerProblems(other.merchant.id)).toEqual([]);
  });

  it('a provider runs it for its merchant with X-Entity-Id; for a foreign merchant: 404 Merchant not found; banks: 403', async () => {
    const m = await merchantSetup({ provider: true });
    const a = await simulatedAgreement(m, 'approve.once');
    const ref = (await bill(t, m.merchant, [a.agreementPhrase], 300)).body[0].reference;
    await bankAnswers();
    expect((await billingResponse(m, ref)).data.status).toBe('succeeded');
    const stranger = await t.participant('provider');
    const foreign = await t.call('POST', '/v1/sandbox/settlements/run', {
      key: stranger.apiKey,
      headers: { 'X-Entity-Id': m.merchant.id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Merchant not found');
    const noHeader = await t.call('POST', '/v1/sandbox/settlements/run', { key: m.provider!.apiKey });
    expect(noHeader.status).toBe(400);
    const bank = await t.call('POST', '/v1/sandbox/settlements/run', { key: sim.apiKey });
    expect(bank.status).toBe(403);
    const r = await t.call('POST', '/v1/sandbox/settlements/run', { key: m.provider!.apiKey, headers: { 'X-Entity-Id': m.merchant.id } });
    expect(r.status).toBe(200);
    expect(r.body.data.settledAmount).toBe(300);
  });
});

describe('POST /v1/sandbox/refunds/{refundId}/complete', () => {
  async function succeededBill(m: MerchantSetup, amount: number): Promise<string> {
    const a = await simulatedAgreement(m, 'approve.once');
    const ref = (await bill(t, m.merchant, [a.agreementPhrase], amount)).body[0].reference;
    await bankAnswers();
    expect((await billingResponse(m, ref)).data.status).toBe('succeeded');
    return ref;
  }

  it('completes a refund now (pending -> processing -> completed, refund.updated each); again: 200 as it is', async () => {
    const m = await merchantSetup({ provider: true });
    const ref = await succeededBill(m, 1000);
    const init = await t.call('POST', '/v1/refunds/initiate', {
      key: m.merchant.apiKey,
      body: { reference: ref, amount: 400, reason: 'Returned' },
    });
    expect(init.status).toBe(201);
    const refundId = init.body.data.refundId;
    const r = await t.call('POST', `/v1/sandbox/refunds/${refundId}/complete`, { key: m.merchant.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Refund completed',
      data: { refundId, reference: ref, amount: 400, status: 'completed' },
    });
    const updates = inCreationOrder(await events(rx, m.hook, 'refund.updated', 2, (e) => e.data.refundId === refundId));
    expect(updates.map((e) => e.data.status)).toEqual(['processing', 'completed']);
    await events(rx, m.providerHook!, 'refund.updated', 2, (e) => e.data.refundId === refundId);
    const status = await t.call('GET', `/v1/refunds/${refundId}/status`, { key: m.merchant.apiKey });
    expect(status.body.data.status).toBe('completed');
    const tx = await t.call('GET', '/v1/transaction-details', { key: m.merchant.apiKey, query: { reference: ref } });
    expect(tx.body.data).toMatchObject({ status: 'partially_refunded', refundedAmount: 400 });
    const again = await t.call('POST', `/v1/sandbox/refunds/${refundId}/complete`, { key: m.merchant.apiKey });
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('completed');
    expect(receivedEvents(rx, m.hook, 'refund.updated').filter((e) => e.data.refundId === refundId)).toHaveLength(2);
    expect(await ledgerProblems(m.merchant.id)).toEqual([]);
  });

  it("another merchant's or unknown refund: 404 Refund not found; provider with X-Entity-Id: own merchant's only; a failed refund: 409", async () => {
    const owner = await merchantSetup({ provider: true });
    const other = await merchantSetup({ provider: true });
    const ref = await succeededBill(owner, 900);
    const refundId = (await t.call('POST', '/v1/refunds/initiate', { key: owner.merchant.apiKey, body: { reference: ref, amount: 100 } }))
      .body.data.refundId;
    for (const id of [refundId, 'rfd_unknown']) {
      const r = await t.call('POST', `/v1/sandbox/refunds/${id}/complete`, { key: other.merchant.apiKey });
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Refund not found');
    }
    const viaOther = await t.call('POST', `/v1/sandbox/refunds/${refundId}/complete`, {
      key: other.provider!.apiKey,
      headers: { 'X-Entity-Id': other.merchant.id },
    });
    expect(viaOther.status).toBe(404);
    expect(viaOther.body.message).toBe('Refund not found');
    const status = await t.call('GET', `/v1/refunds/${refundId}/status`, { key: owner.merchant.apiKey });
    expect(status.body.data.status).toBe('pending');
    const ok = await t.call('POST', `/v1/sandbox/refunds/${refundId}/complete`, {
      key: owner.provider!.apiKey,
      headers: { 'X-Entity-Id': owner.merchant.id },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toBe('completed');

    // A refund the bank failed cannot be completed.
    const second = (await t.call('POST', '/v1/refunds/initiate', { key: owner.merchant.apiKey, body: { reference: ref, amount: 50 } })).body
      .data.refundId;
    const failed = await t.call('POST', '/v1/billing/refund-response', {
      key: sim.apiKey,
      body: { refundId: second, status: 'failed', reason: 'Account closed' },
    });
    expect(failed.status).toBe(200);
    const r = await t.call('POST', `/v1/sandbox/refunds/${second}/complete`, { key: owner.merchant.apiKey });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ message: 'Refund has failed and cannot be completed', code: 'refund_failed' });
  });
});

describe('POST /v1/sandbox/recurring/{scheduleId}/run', () => {
  it('makes the next run due now: the tick runs it, the simulated bank pays it, later runs keep their dates', async () => {
    const m = await merchantSetup({ trustLevel: 'premium' });
    const a = await simulatedAgreement(m, 'approve.recurring');
    const start = new Date(Date.now() + 10 * 86_400_000);
    start.setUTCMilliseconds(0);
    const created = await t.call('POST', '/v1/billing/recurring/create', {
      key: m.merchant.apiKey,
      body: scheduleBody(a, { amount: 700, startDate: start.toISOString() }),
    });
    expect(created.status).toBe(201);
    const id = created.body.data.scheduleId;
    // Not due yet: a tick now does nothing.
    await t.app.tick(new Date());
    await t.app.settle();
    expect(receivedEvents(rx, simHook, 'billing.request').filter((e) => e.data.scheduleId === id)).toHaveLength(0);

    const before = Date.now();
    const r = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: m.merchant.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Recurring run is due now',
      data: { scheduleId: id, status: 'active', totalBillings: 0 },
    });
    expect(Date.parse(r.body.data.nextBillingDate)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(r.body.data.nextBillingDate)).toBeLessThanOrEqual(Date.now());

    await t.app.tick(new Date());
    await t.app.settle();
    const [req] = await events(rx, simHook, 'billing.request', 1, (e) => e.data.scheduleId === id);
    expect(req!.data).toMatchObject({ type: 'recurring', amount: 700, requiresApproval: false });
    // While the run is at the bank: 409.
    const busy = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: m.merchant.apiKey });
    expect(busy.status).toBe(409);
    expect(busy.body.message).toBe('A run of this recurring schedule is already in progress');

    await bankAnswers();
    const [res] = await events(rx, m.hook, 'billing.response', 1, (e) => e.data.scheduleId === id);
    expect(res!.data).toMatchObject({ status: 'succeeded', amount: 700, scheduleId: id });
    const deadline = Date.now() + 60_000; // the recurring outcome's workers on a loaded machine
    let s: any;
    for (;;) {
      s = (await t.call('GET', `/v1/recurring/${id}`, { key: m.merchant.apiKey })).body.data;
      if (s.totalBillings === 1 && s.status === 'active') break;
      if (Date.now() > deadline) throw new Error(`schedule not finished: ${JSON.stringify(s)}`);
      await t.app.tick(new Date(Date.now() + DELAY_MS + 500));
      await t.app.settle();
    }
    // The period billed early was the first; the next keeps its own date.
    expect(s.nextBillingDate).toBe(nextBillingDate(start, 'monthly', 1, 1).toISOString());
  });

  it("404 for another merchant's or an unknown schedule; provider with X-Entity-Id; paused: 409 Recurring schedule is not active", async () => {
    const m = await merchantSetup({ trustLevel: 'premium' });
    const other = await merchantSetup({ trustLevel: 'premium' });
    const a = await simulatedAgreement(m, 'approve.recurring');
    const id = (
      await t.call('POST', '/v1/billing/recurring/create', {
        key: m.merchant.apiKey,
        body: scheduleBody(a, { startDate: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
      })
    ).body.data.scheduleId;
    for (const sid of [id, 'sch_0000000000000000000000', 'x']) {
      const r = await t.call('POST', `/v1/sandbox/recurring/${sid}/run`, { key: other.merchant.apiKey });
      expect(r.status).toBe(404);
      expect(r.body.message).toBe('Recurring schedule not found');
    }
    const viaOther = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, {
      key: other.provider!.apiKey,
      headers: { 'X-Entity-Id': other.merchant.id },
    });
    expect(viaOther.status).toBe(404);
    expect(viaOther.body.message).toBe('Recurring schedule not found');
    const unchanged = (await t.call('GET', `/v1/recurring/${id}`, { key: m.merchant.apiKey })).body.data;

    const paused = await t.call('POST', `/v1/recurring/${id}/pause`, { key: m.merchant.apiKey, body: { reason: 'holiday' } });
    expect(paused.status).toBe(200);
    const r = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, {
      key: m.provider!.apiKey,
      headers: { 'X-Entity-Id': m.merchant.id },
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Recurring schedule is not active');
    const resumed = await t.call('POST', `/v1/recurring/${id}/resume`, { key: m.merchant.apiKey, body: {} });
    expect(resumed.status).toBe(200);
    const ok = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, {
      key: m.provider!.apiKey,
      headers: { 'X-Entity-Id': m.merchant.id },
    });
    expect(ok.status).toBe(200);
    expect(Date.parse(ok.body.data.nextBillingDate)).toBeLessThan(Date.parse(unchanged.nextBillingDate));
  });
});
