/**
 * A bill end to end, from the merchant to the webhooks (the `npm run test:quick` flow, with the
 * unit project): bill -> bank receives `billing.request` -> bank-response -> merchant (and
 * provider) receive `billing.response`, the ledger posted; approve_recurring, approve_once,
 * deny and suspended, and a provider billing for its merchant. Real local stack, real webhook
 * receivers, decisions made through the real agreement flow (test/support/flows.ts). The
 * refusals, whole-body errors, pay and bank-response refusals are in billing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { captureEntryKey } from '../../functions/ledger/store';
import { decisionKey, type DecisionItem } from '../../functions/decisions/views';
import { getItem } from '../../functions/platform/table';
import { eventKey } from '../../functions/webhooks/delivery-store';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { counters, getBill, ledgerProblems } from '../support/billing-table';
import { agreement, bankResponse, bill, billOne, events } from '../support/flows';
import type { Receiver } from '../../local/receiver';

const LIMITS = "Billing exceeds the customer's spending limits";

let t: TestApp;
let rx: Receiver;

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

describe('bill: full loop', () => {
  it('approve_recurring: requiresApproval false -> bank approves -> succeeded, ledger posted, merchant and provider notified', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', withProvider: true, receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 1500.5, { description: 'Gym, November' });
    expect(r.status).toBe(201);
    const el = r.body[0];
    expect(el).toMatchObject({
      statusCode: 201,
      success: true,
      phrase: a.agreementPhrase,
      entityId: a.merchant.id,
      requiresApproval: false,
    });
    expect(el.reference).toMatch(/^txn_/);
    expect(el.message).toEqual(expect.any(String));
    expect(el.expiresAt).toBeUndefined();

    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data).toEqual({
      billingRequestId: el.billingRequestId,
      reference: el.reference,
      type: 'agreement',
      customerId: a.customerId,
      clientRef: a.clientRef,
      entityId: a.merchant.id,
      merchantName: a.merchant.name,
      amount: 1500.5,
      currency: 'NGN',
      description: 'Gym, November',
      requiresApproval: false,
    });

    const stored = await getBill(el.billingRequestId);
    expect(stored).toMatchObject({
      status: 'pending',
      amount: 150050,
      type: 'agreement',
      requiresApproval: false,
      decisionId: a.decisionId,
    });
    expect(stored!.dueSk).toBeUndefined();
    // The bill's transaction wrote no event item: billing.request rides on the billing
    // (events/outbox.ts `carry`) and the stream consumer wrote its item from the bill's record.
    expect(stored!.emits).toMatchObject({ id: req!.id, type: 'billing.request', at: req!.createdAt });
    expect(stored!.eventIds).toEqual([req!.id]);
    expect(await getItem(eventKey(req!.id))).toMatchObject({
      type: 'billing.request',
      to: a.bank.id,
      carriedBy: `BILL#${el.billingRequestId}`,
      data: req!.data,
    });

    const br = await bankResponse(t, a.bank, el.billingRequestId, 'approve_recurring', 'BANK-TX-1');
    expect(br.status).toBe(200);
    expect(br.body).toMatchObject({
      statusCode: 200,
      success: true,
      data: { billingRequestId: el.billingRequestId, reference: el.reference, status: 'succeeded' },
    });

    const expected = {
      billingRequestId: el.billingRequestId,
      reference: el.reference,
      entityId: a.merchant.id,
      customerId: a.customerId,
      amount: 1500.5,
      currency: 'NGN',
      status: 'succeeded',
      customerAction: 'approved',
      bankTransactionId: 'BANK-TX-1',
    };
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toEqual(expected);
    const [prov] = await events(rx, a.hooks!.provider!, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(prov!.data).toEqual(expected);

    const after = await getBill(el.billingRequestId);
    expect(after).toMatchObject({ status: 'succeeded', bankTransactionId: 'BANK-TX-1', bankAction: 'approve_recurring' });
    // The answer's event replaced the request's on the billing; one item per event, both written by the consumer.
    expect(res!.id).toBe(prov!.id);
    expect(after!.emits).toMatchObject({ id: res!.id, type: 'billing.response', at: res!.createdAt });
    expect(after!.eventIds).toEqual([req!.id, res!.id]);
    expect(await getItem(eventKey(res!.id))).toMatchObject({ to: a.merchant.id, carriedBy: `BILL#${el.billingRequestId}`, data: expected });
    expect(after!.settlementDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await getItem(captureEntryKey(after!))).toMatchObject({ amount: 150050, kind: 'capture' });
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
    // Succeeded billings keep counting against the limits.
    expect(await counters(a.decisionId)).toMatchObject({ month: 150050, day: 150050, week: 150050 });
    // lastUsed is the billing's time (kept on the pair's counter item: the decision item is not written).
    const read = await t.call('GET', `/v1/customer-decisions/${a.decisionId}`, { key: a.merchant.apiKey });
    expect(read.body.data.lastUsed).toBe(stored!.createdAt);
    const dec = await getItem<DecisionItem>(decisionKey(a.decisionId));
    expect(dec).toMatchObject({ version: 1, lastUsed: null });
  });

  it('approve_once: requiresApproval true with expiresAt -> approve_once -> succeeded', async () => {
    const a = await agreement(t, { decision: 'approve_once', receiver: rx });
    const before = Date.now();
    const { status, el } = await billOne(t, a, 20);
    expect(status).toBe(201);
    expect(el.requiresApproval).toBe(true);
    const expiresAt = Date.parse(el.expiresAt);
    // Default window: 600 s.
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data).toMatchObject({ requiresApproval: true, expiresAt: el.expiresAt, type: 'agreement', amount: 20 });
    const stored = await getBill(el.billingRequestId);
    expect(stored!.dueSk).toContain('billing.expiry');

    const br = await bankResponse(t, a.bank, el.billingRequestId, 'approve_once');
    expect(br.status).toBe(200);
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toMatchObject({ status: 'succeeded', customerAction: 'approved', amount: 20 });
    const after = await getBill(el.billingRequestId);
    expect(after!.status).toBe('succeeded');
    expect(after!.dueSk).toBeUndefined();
    expect(after!.duePk).toBeUndefined();
  });

  it('deny and suspended answers: declined, reservation released, customerAction declined', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 100 }, receiver: rx });
    const first = await billOne(t, a, 80);
    expect(first.status).toBe(201);
    expect((await billOne(t, a, 30)).el.message).toBe(LIMITS);

    const br = await bankResponse(t, a.bank, first.el.billingRequestId, 'deny', null);
    expect(br.status).toBe(200);
    expect(br.body.data.status).toBe('declined');
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === first.el.reference);
    expect(res!.data).toMatchObject({ status: 'declined', customerAction: 'declined', reason: 'customer_denied', bankTransactionId: null });
    expect((await counters(a.decisionId)).day).toBe(0);

    // The released amount is available again; a suspended answer releases too.
    const second = await billOne(t, a, 100);
    expect(second.status).toBe(201);
    expect((await bankResponse(t, a.bank, second.el.billingRequestId, 'suspended', 'BTX-S')).status).toBe(200);
    const [res2] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === second.el.reference);
    expect(res2!.data).toMatchObject({
      status: 'declined',
      customerAction: 'declined',
      reason: 'customer_suspended',
      bankTransactionId: 'BTX-S',
    });
    expect(await counters(a.decisionId)).toMatchObject({ day: 0, week: 0, month: 0 });
    // A declined billing leaves the decision as it was (the action is about this billing).
    const dec = await getItem<DecisionItem>(decisionKey(a.decisionId));
    expect(dec!.decision).toBe('approve_once');
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it('a provider bills for its merchant with X-Entity-Id', async () => {
    const a = await agreement(t, { decision: 'approve_once', withProvider: true, receiver: rx });
    const r = await t.call('POST', '/v1/customer/bill', {
      key: a.provider!.apiKey,
      headers: { 'x-entity-id': a.merchant.id },
      body: { agreementPhrases: [a.agreementPhrase], amount: 5, currency: 'NGN', description: 'Via provider' },
    });
    expect(r.status).toBe(201);
    expect(r.body[0]).toMatchObject({ statusCode: 201, entityId: a.merchant.id });
    const stored = await getBill(r.body[0].billingRequestId);
    expect(stored).toMatchObject({ merchantId: a.merchant.id, providerId: a.provider!.id });
    expect(stored!.gsi7pk).toMatch(new RegExp(`^PTXN#${a.provider!.id}#[0-7]$`));
  });
});
