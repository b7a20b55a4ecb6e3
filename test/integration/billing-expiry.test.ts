/**
 * Approval expiry (spec rule 6, DESIGN 5 and 6.9 "Expiry timing"): a billing that needs the
 * customer's approval and is not answered within APPROVAL_WINDOW_SECONDS (2 s here) becomes
 * `expired` through the scheduler tick (due kind `billing.expiry`), releases its
 * reservation and sends `billing.response` (status expired, customerAction declined). A bank
 * answer after the window is refused with 409 and expires the billing at once if the tick
 * has not yet. Time is driven with `t.app.tick(date)`.
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { counters, getBill, ledgerProblems } from '../support/billing-table';
import { agreement, bankResponse, bill, events, pay, payee, receivedEvents } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { APPROVAL_WINDOW_SECONDS: '2' },
);

describe('approval expiry through the tick', () => {
  it('approve_once billing: not expired before its time; expired by the tick after; reservation released; merchant and provider notified; late answer 409', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 50 }, withProvider: true, receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 50);
    expect(r.status).toBe(201);
    const el = r.body[0];
    const expiresAt = Date.parse(el.expiresAt);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(2000);
    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data.expiresAt).toBe(el.expiresAt);

    // A tick before the window (and its 1 s lead) ends does nothing.
    await t.app.tick(new Date(expiresAt - 1500));
    await t.app.settle();
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');

    await t.app.tick(new Date(expiresAt + 1000));
    await t.app.settle();
    const expected = {
      billingRequestId: el.billingRequestId,
      reference: el.reference,
      entityId: a.merchant.id,
      customerId: a.customerId,
      amount: 50,
      currency: 'NGN',
      status: 'expired',
      customerAction: 'declined',
      bankTransactionId: null,
      reason: 'approval_expired',
    };
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toEqual(expected);
    const [prov] = await events(rx, a.hooks!.provider!, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(prov!.data).toEqual(expected);

    const stored = await getBill(el.billingRequestId);
    expect(stored).toMatchObject({ status: 'expired', reason: 'approval_expired' });
    expect(stored!.dueSk).toBeUndefined();
    expect((await counters(a.decisionId)).day).toBe(0);

    // The bank answers too late: 409, nothing changes.
    for (const action of ['approve_once', 'deny'] as const) {
      const late = await bankResponse(t, a.bank, el.billingRequestId, action);
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ statusCode: 409, success: false, message: 'Billing request has expired' });
    }
    expect((await getBill(el.billingRequestId))!.status).toBe('expired');

    // Another tick changes nothing and sends nothing more.
    await t.app.tick(new Date(expiresAt + 600_000));
    await t.app.settle();
    expect(receivedEvents(rx, a.hooks!.merchant, 'billing.response').filter((e) => e.data.reference === el.reference)).toHaveLength(1);

    // The released amount can be billed again.
    expect((await bill(t, a.merchant, [a.agreementPhrase], 50)).status).toBe(201);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it('one-time pay expires the same way', async () => {
    const p = await payee(t, { receiver: rx });
    const r = await pay(t, p.merchant, [p.lookupPhrase], 7.5);
    expect(r.status).toBe(201);
    const el = r.body[0];
    await t.app.tick(new Date(Date.parse(el.expiresAt) + 1));
    await t.app.settle();
    const [res] = await events(rx, p.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toMatchObject({ status: 'expired', customerAction: 'declined', amount: 7.5 });
    expect((await getBill(el.billingRequestId))!.type).toBe('one_time');
  });

  it('a billing without approval (approve_recurring) never expires', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 3);
    const el = r.body[0];
    expect(el.requiresApproval).toBe(false);
    await t.app.tick(new Date(Date.now() + 3600_000));
    await t.app.settle();
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
    expect((await bankResponse(t, a.bank, el.billingRequestId, 'approve_recurring')).status).toBe(200);
  });

  it('a bank answer after expiresAt but before any tick: 409 expired, the billing expires in that call, exactly one billing.response', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 10 }, receiver: rx });
    const r = await bill(t, a.merchant, [a.agreementPhrase], 10);
    const el = r.body[0];
    await sleep(Math.max(0, Date.parse(el.expiresAt) - Date.now()) + 50);
    const late = await bankResponse(t, a.bank, el.billingRequestId, 'approve_once');
    expect(late.status).toBe(409);
    expect(late.body.message).toBe('Billing request has expired');
    const stored = await getBill(el.billingRequestId);
    expect(stored!.status).toBe('expired');
    expect(stored!.dueSk).toBeUndefined();
    expect((await counters(a.decisionId)).day).toBe(0);
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toMatchObject({ status: 'expired', customerAction: 'declined' });
    // The tick finds nothing left to do.
    await t.app.tick(new Date(Date.now() + 60_000));
    await t.app.settle();
    expect(receivedEvents(rx, a.hooks!.merchant, 'billing.response').filter((e) => e.data.reference === el.reference)).toHaveLength(1);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it('an answer racing the expiry: exactly one outcome, one event, limits consistent', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 10 }, receiver: rx });
    const els = [];
    for (let i = 0; i < 5; i++) {
      // Fresh agreement per round keeps the limits independent.
      const b = i === 0 ? a : await agreement(t, { decision: 'approve_once', limits: { daily: 10 }, merchant: a.merchant, bank: a.bank });
      const r = await bill(t, b.merchant, [b.agreementPhrase], 10);
      els.push({ el: r.body[0], decisionId: b.decisionId });
    }
    const last = Math.max(...els.map((e) => Date.parse(e.el.expiresAt)));
    await sleep(Math.max(0, last - Date.now() - 30));
    // The bank answers right at the deadline while ticks run.
    const answers = await Promise.all([
      ...els.map((e) => bankResponse(t, a.bank, e.el.billingRequestId, 'approve_once')),
      t.app.tick(new Date(last + 10)),
      t.app.tick(new Date(last + 10)),
    ]);
    await t.app.settle();
    await sleep(300);
    await t.app.settle();
    for (let i = 0; i < els.length; i++) {
      const { el, decisionId } = els[i]!;
      const answer = answers[i] as { status: number; body: any };
      const stored = await getBill(el.billingRequestId);
      expect(['succeeded', 'expired']).toContain(stored!.status);
      if (stored!.status === 'succeeded') expect(answer.status).toBe(200);
      else {
        expect(answer.status).toBe(409);
        expect(answer.body.message).toBe('Billing request has expired');
      }
      const c = await counters(decisionId);
      expect(c.day).toBe(stored!.status === 'succeeded' ? 1000 : 0);
      const evs = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
      expect(evs).toHaveLength(1);
      expect(evs[0]!.data.status).toBe(stored!.status);
    }
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });
});

describe('trust at billing time (DESIGN 8.1)', () => {
  it('approve_recurring of a merchant the provider un-trusted: the bill asks the customer (requiresApproval, expiresAt) and expires like approve_once', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', withProvider: true, receiver: rx });
    const lowered = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: a.provider!.apiKey,
      body: { entityId: a.merchant.id, trusted: false },
    });
    expect(lowered.status).toBe(200);

    const r = await bill(t, a.merchant, [a.agreementPhrase], 40);
    expect(r.status).toBe(201);
    const el = r.body[0];
    expect(el).toMatchObject({ statusCode: 201, success: true, requiresApproval: true, status: 'pending' });
    expect(typeof el.expiresAt).toBe('string');
    const expiresAt = Date.parse(el.expiresAt);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(2000);
    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.reference === el.reference);
    expect(req!.data).toMatchObject({ requiresApproval: true, expiresAt: el.expiresAt });
    // The approval-expiry due entry, like any approve_once billing.
    expect((await getBill(el.billingRequestId))!.dueSk).toBeDefined();

    await t.app.tick(new Date(expiresAt + 1000));
    await t.app.settle();
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.reference === el.reference);
    expect(res!.data).toMatchObject({ status: 'expired', customerAction: 'declined', reason: 'approval_expired' });
    expect((await getBill(el.billingRequestId))!.status).toBe('expired');

    // Trusted again: the same decision bills without approval again (no decision was rewritten).
    expect(
      (await t.call('PATCH', '/v1/provider/merchant/trust', { key: a.provider!.apiKey, body: { entityId: a.merchant.id, trusted: true } }))
        .status,
    ).toBe(200);
    const again = await bill(t, a.merchant, [a.agreementPhrase], 40);
    expect(again.status).toBe(201);
    expect(again.body[0].requiresApproval).toBe(false);
    expect(again.body[0].expiresAt).toBeUndefined();
  });
});
