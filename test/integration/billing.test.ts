/**
 * Billing flow end to end (billing half): bill -> bank receives `billing.request`
 * -> bank-response -> merchant (and provider) receive `billing.response`; one-time pay;
 * every refusal with its exact message; whole-body 400s that write nothing; 207 mixing;
 * bank-response refusals. Real local stack, real webhook receivers, decisions made through
 * the real agreement flow (test/support/flows.ts).
 */
import { describe, expect, it } from 'vitest';
import { issueAgreementPhrase } from '../../functions/domain/agreement-phrase';
import { decisionId } from '../../functions/domain/decisions';
import { randomToken } from '../../functions/domain/ids';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { bills, billsOf, counters, getBill, ledgerProblems } from '../support/billing-table';
import { agreement, bankResponse, bill, billOne, decide, events, pay, payee, receivedEvents } from '../support/flows';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const NOT_APPROVED = 'Customer has not approved billing';
const BLOCKED = 'Merchant is blocked by the customer';
const LIMITS = "Billing exceeds the customer's spending limits";

describe('bill: refusals (DESIGN 6.9 precedence)', () => {
  it('blocked merchant -> 403 Merchant is blocked by the customer (before deny)', async () => {
    const approvedButBlocked = await agreement(t, { decision: 'approve_once', blockMerchant: true });
    let r = await billOne(t, approvedButBlocked, 10);
    expect(r.status).toBe(403);
    expect(r.el).toEqual({
      statusCode: 403,
      success: false,
      message: BLOCKED,
      code: 'merchant_blocked',
      type: 'permission_error',
      docUrl: '/docs#error-merchant_blocked',
      phrase: approvedButBlocked.agreementPhrase,
      entityId: approvedButBlocked.merchant.id,
    });
    const deniedAndBlocked = await agreement(t, { decision: 'deny', blockMerchant: true });
    r = await billOne(t, deniedAndBlocked, 10);
    expect(r.el.message).toBe(BLOCKED);
  });

  it('deny and suspended -> 403 Customer has not approved billing', async () => {
    for (const decision of ['deny', 'suspended'] as const) {
      const a = await agreement(t, { decision });
      const r = await billOne(t, a, 10);
      expect(r.status).toBe(403);
      expect(r.el).toMatchObject({ statusCode: 403, success: false, message: NOT_APPROVED, phrase: a.agreementPhrase });
    }
  });

  it('a decision changed to deny by the bank stops billing at once', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    expect((await billOne(t, a, 10)).status).toBe(201);
    await decide(t, { bank: a.bank, merchant: a.merchant, customerId: a.customerId, lookupPhrase: a.lookupPhrase, decision: 'deny' });
    expect((await billOne(t, a, 10)).el.message).toBe(NOT_APPROVED);
  });

  it('no decision, tampered, foreign and garbage phrases -> 403 Customer has not approved billing', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const other = await agreement(t, { decision: 'approve_once' });
    // A genuine phrase (right key, right merchant) naming a decision that does not exist.
    const noDecision = await issueAgreementPhrase(decisionId(a.merchant.id, 'cus_doesnotexist'), a.merchant.id);
    const p = a.agreementPhrase;
    const i = Math.floor(p.length / 2);
    const tampered = p.slice(0, i) + (p[i] === 'A' ? 'B' : 'A') + p.slice(i + 1);
    const phrases = [noDecision, tampered, other.agreementPhrase, 'ap_garbage', 'not-a-phrase'];
    const before = (await billsOf(a.merchant.id)).length;
    const r = await bill(t, a.merchant, phrases, 10);
    expect(r.status).toBe(403);
    expect(r.body).toHaveLength(phrases.length);
    r.body.forEach((el: any, n: number) => {
      expect(el).toEqual({
        statusCode: 403,
        success: false,
        message: NOT_APPROVED,
        code: 'billing_not_approved',
        type: 'permission_error',
        docUrl: '/docs#error-billing_not_approved',
        phrase: phrases[n],
        entityId: a.merchant.id,
      });
    });
    expect((await billsOf(a.merchant.id)).length).toBe(before);
    expect((await billsOf(other.merchant.id)).length).toBe(0);
  });

  it('limits: single', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { single: 50 } });
    expect((await billOne(t, a, 50.01)).el).toMatchObject({ statusCode: 403, message: LIMITS, code: 'spending_limit_exceeded' });
    expect((await billOne(t, a, 50)).status).toBe(201);
    expect((await billOne(t, a, 50)).status).toBe(201);
  });

  it('limits: daily (pending + succeeded count; exactly at the limit passes)', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 100 }, receiver: rx });
    const first = await billOne(t, a, 60);
    expect(first.status).toBe(201);
    expect((await bankResponse(t, a.bank, first.el.billingRequestId, 'approve_once')).status).toBe(200);
    expect((await billOne(t, a, 30)).status).toBe(201); // 90 pending + succeeded
    const over = await billOne(t, a, 10.01);
    expect(over.status).toBe(403);
    expect(over.el.message).toBe(LIMITS);
    expect((await billOne(t, a, 10)).status).toBe(201); // exactly 100
    expect((await billOne(t, a, 0.01 + 0.99)).status).toBe(403);
    expect(await counters(a.decisionId)).toMatchObject({ day: 10000, week: 10000, month: 10000 });
  });

  it('limits: weekly', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { weekly: 30, daily: 1000 } });
    expect((await billOne(t, a, 20)).status).toBe(201);
    expect((await billOne(t, a, 10.5)).el.message).toBe(LIMITS);
    expect((await billOne(t, a, 10)).status).toBe(201);
  });

  it('limits: monthly', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { monthly: 25 } });
    expect((await billOne(t, a, 25.01)).el.message).toBe(LIMITS);
    expect((await billOne(t, a, 12.5)).status).toBe(201);
    expect((await billOne(t, a, 12.5)).status).toBe(201);
    expect((await billOne(t, a, 1)).el.message).toBe(LIMITS);
    expect((await counters(a.decisionId)).month).toBe(2500);
  });

  it('limits set later in a period count the billings made before', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    expect((await billOne(t, a, 40)).status).toBe(201);
    await decide(t, {
      bank: a.bank,
      merchant: a.merchant,
      customerId: a.customerId,
      lookupPhrase: a.lookupPhrase,
      decision: 'approve_recurring',
      limits: { daily: 50 },
    });
    expect((await billOne(t, a, 11)).el.message).toBe(LIMITS);
    expect((await billOne(t, a, 10)).status).toBe(201);
  });
});

describe('bill: whole-body errors and mixing', () => {
  it('bad bodies -> 400 Invalid request parameters and nothing written', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const base = { agreementPhrases: [a.agreementPhrase], amount: 10, currency: 'NGN', description: 'x' };
    const bad: Record<string, unknown>[] = [
      { ...base, amount: 0.99 },
      { ...base, amount: 0 },
      { ...base, amount: -5 },
      { ...base, amount: 10.001 },
      { ...base, amount: '10' },
      { ...base, amount: 1e21 },
      { ...base, currency: 'ngn' },
      { ...base, currency: 'NAIRA' },
      { ...base, agreementPhrases: [] },
      { ...base, agreementPhrases: 'x' },
      { ...base, agreementPhrases: Array.from({ length: 101 }, (_, i) => `ap_${i}`) },
      { ...base, description: '' },
      { ...base, extra: true },
      { agreementPhrases: base.agreementPhrases, amount: 10, currency: 'NGN' },
    ];
    const before = (await bills()).length;
    for (const body of bad) {
      const r = await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
    }
    const usd = await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, body: { ...base, currency: 'USD' } });
    expect(usd.status).toBe(400);
    expect(usd.body).toMatchObject({ statusCode: 400, success: false, message: 'Unsupported currency' });
    const json = await t.call('POST', '/v1/customer/bill', { key: a.merchant.apiKey, rawBody: '{"agreementPhrases": [' });
    expect(json.status).toBe(400);
    expect((await bills()).length).toBe(before);
    expect((await counters(a.decisionId)).items).toBe(0);
  });

  it('elements with different statuses -> 207, in input order; a repeated phrase is billed once', async () => {
    const a = await agreement(t, { decision: 'approve_recurring' });
    const b = await agreement(t, { decision: 'approve_once', merchant: a.merchant, bank: a.bank });
    const denied = await agreement(t, { decision: 'deny', merchant: a.merchant, bank: a.bank });
    const blocked = await agreement(t, { decision: 'approve_once', blockMerchant: true, merchant: a.merchant, bank: a.bank });
    const limited = await agreement(t, { decision: 'approve_once', limits: { single: 5 }, merchant: a.merchant, bank: a.bank });
    const phrases = [
      a.agreementPhrase,
      denied.agreementPhrase,
      b.agreementPhrase,
      blocked.agreementPhrase,
      limited.agreementPhrase,
      a.agreementPhrase,
    ];
    const r = await bill(t, a.merchant, phrases, 10);
    expect(r.status, JSON.stringify(r.body)).toBe(207);
    expect(r.body.map((e: any) => [e.statusCode, e.message === undefined ? undefined : e.success])).toEqual([
      [201, true],
      [403, false],
      [201, true],
      [403, false],
      [403, false],
      [201, true],
    ]);
    expect(r.body.map((e: any) => e.phrase)).toEqual(phrases);
    expect(r.body[1].message).toBe(NOT_APPROVED);
    expect(r.body[3].message).toBe(BLOCKED);
    expect(r.body[4].message).toBe(LIMITS);
    expect(r.body[0].reference).toBe(r.body[5].reference);
    expect(r.body[2].requiresApproval).toBe(true);
    expect(r.body[0].requiresApproval).toBe(false);
    expect((await billsOf(a.merchant.id)).length).toBe(2);
  });

  it('a merchant cannot call bank-response, a bank cannot bill', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const r1 = await bill(t, a.bank, [a.agreementPhrase], 10);
    expect(r1.status).toBe(403);
    expect(r1.body.message).toBe('Forbidden for this participant type');
    const r2 = await bankResponse(t, a.merchant, 'breq_x', 'approve_once');
    expect(r2.status).toBe(403);
  });
});

describe('pay (one-time, independent of the agreement flow)', () => {
  it('full loop: requiresApproval true -> approve_once -> succeeded; type one_time', async () => {
    const p = await payee(t, { receiver: rx });
    const r = await pay(t, p.merchant, [p.lookupPhrase], 99.99, { description: 'Shoes' });
    expect(r.status).toBe(201);
    const el = r.body[0];
    expect(el).toMatchObject({
      statusCode: 201,
      success: true,
      lookupPhrase: p.lookupPhrase,
      entityId: p.merchant.id,
      requiresApproval: true,
    });
    expect(el.phrase).toBeUndefined();
    expect(el.reference).toMatch(/^txn_/);
    const [req] = await events(rx, p.hooks!.bank, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data).toMatchObject({
      type: 'one_time',
      customerId: p.customerId,
      clientRef: p.clientRef,
      amount: 99.99,
      currency: 'NGN',
      description: 'Shoes',
      requiresApproval: true,
      expiresAt: el.expiresAt,
    });
    expect((await bankResponse(t, p.bank, el.billingRequestId, 'approve_once')).status).toBe(200);
    const [res] = await events(rx, p.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toMatchObject({ status: 'succeeded', customerAction: 'approved', amount: 99.99, customerId: p.customerId });
    expect((await getBill(el.billingRequestId))!.type).toBe('one_time');
    expect(await ledgerProblems(p.merchant.id)).toEqual([]);
  });

  it('unknown and foreign lookupPhrases -> element 404 Customer not found; deny does not stop a pay; block does; limits apply', async () => {
    const p = await payee(t);
    const other = await payee(t, { bank: p.bank });
    const denied = await agreement(t, { decision: 'deny', merchant: p.merchant, bank: p.bank });
    const blocked = await agreement(t, { decision: 'approve_once', blockMerchant: true, merchant: p.merchant, bank: p.bank });
    const limited = await agreement(t, { decision: 'suspended', limits: { single: 5 }, merchant: p.merchant, bank: p.bank });
    const unknown = `lp_${randomToken(32)}`;
    const phrases = [
      p.lookupPhrase,
      unknown,
      other.lookupPhrase,
      denied.lookupPhrase,
      blocked.lookupPhrase,
      limited.lookupPhrase,
      'garbage',
    ];
    const r = await pay(t, p.merchant, phrases, 10);
    expect(r.status).toBe(207);
    const [ok, unk, foreign, den, blk, lim, garbage] = r.body;
    expect(ok).toMatchObject({ statusCode: 201, success: true, requiresApproval: true });
    for (const el of [unk, foreign, garbage]) {
      expect(el).toMatchObject({ statusCode: 404, success: false, message: 'Customer not found', entityId: p.merchant.id });
    }
    expect(foreign.lookupPhrase).toBe(other.lookupPhrase);
    expect(den).toMatchObject({ statusCode: 201, success: true, requiresApproval: true });
    expect(blk).toMatchObject({ statusCode: 403, message: BLOCKED, lookupPhrase: blocked.lookupPhrase });
    expect(lim).toMatchObject({ statusCode: 403, message: LIMITS });
    // A one-time pay counts against the pair's counters (and its limits).
    const smallOk = await pay(t, p.merchant, [limited.lookupPhrase], 5);
    expect(smallOk.status).toBe(201);
    expect((await counters(limited.decisionId)).day).toBe(500);
  });

  it('pays share the pair counters with agreement billings', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 30 } });
    expect((await pay(t, a.merchant, [a.lookupPhrase], 20)).status).toBe(201);
    expect((await billOne(t, a, 11)).el.message).toBe(LIMITS);
    expect((await billOne(t, a, 10)).status).toBe(201);
    expect((await pay(t, a.merchant, [a.lookupPhrase], 0.01 + 0.99)).body[0].message).toBe(LIMITS);
  });

  it('whole-body errors -> 400 and nothing written', async () => {
    const p = await payee(t);
    const before = (await bills()).length;
    for (const body of [
      { lookupPhrases: [p.lookupPhrase], amount: 0.5, currency: 'NGN', description: 'x' },
      { lookupPhrases: [], amount: 5, currency: 'NGN', description: 'x' },
      { lookupPhrases: [p.lookupPhrase], amount: 5, currency: 'ngn', description: 'x' },
      { agreementPhrases: [p.lookupPhrase], amount: 5, currency: 'NGN', description: 'x' },
    ]) {
      const r = await t.call('POST', '/v1/customer/pay', { key: p.merchant.apiKey, body });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    const usd = await pay(t, p.merchant, [p.lookupPhrase], 5, { currency: 'GBP' });
    expect(usd.status).toBe(400);
    expect(usd.body.message).toBe('Unsupported currency');
    expect((await bills()).length).toBe(before);
  });
});

describe('bank-response refusals', () => {
  it('answering twice -> 409 Billing request has already been answered, nothing changes', async () => {
    const a = await agreement(t, { decision: 'approve_once', receiver: rx });
    const { el } = await billOne(t, a, 10);
    expect((await bankResponse(t, a.bank, el.billingRequestId, 'approve_once', 'TX-1')).status).toBe(200);
    for (const action of ['approve_once', 'deny', 'suspended', 'approve_recurring'] as const) {
      const r = await bankResponse(t, a.bank, el.billingRequestId, action, 'TX-2');
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ statusCode: 409, success: false, message: 'Billing request has already been answered' });
    }
    const stored = await getBill(el.billingRequestId);
    expect(stored).toMatchObject({ status: 'succeeded', bankTransactionId: 'TX-1' });
    await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    await t.app.settle();
    expect(receivedEvents(rx, a.hooks!.merchant, 'billing.response').filter((e) => e.data.reference === el.reference)).toHaveLength(1);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it("another bank's billing request, an unknown id -> 404 Billing request not found", async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const otherBank = await t.participant('bank');
    const { el } = await billOne(t, a, 10);
    for (const [key, id] of [
      [otherBank.apiKey, el.billingRequestId],
      [a.bank.apiKey, `breq_${randomToken(20)}`],
      [a.bank.apiKey, 'nonsense'],
    ] as const) {
      const r = await t.call('POST', '/v1/billing/bank-response', {
        key,
        body: { billingRequestId: id, action: 'approve_once', bankTransactionId: 'X' },
      });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Billing request not found' });
    }
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
  });

  it('bad bodies -> 400 and nothing changes', async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const { el } = await billOne(t, a, 10);
    for (const body of [
      { billingRequestId: el.billingRequestId, action: 'approve', bankTransactionId: 'X' },
      { billingRequestId: el.billingRequestId, action: 'approve_once' },
      { billingRequestId: el.billingRequestId, action: 'approve_once', bankTransactionId: 42 },
      { action: 'deny' },
      { billingRequestId: el.billingRequestId, action: 'deny', extra: 1 },
    ]) {
      const r = await t.call('POST', '/v1/billing/bank-response', { key: a.bank.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
  });
});
