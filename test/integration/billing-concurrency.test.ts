/**
 * Billing under concurrency and retries: parallel bills against a
 * daily limit never reserve more than the limit; a retried bill with the same
 * Idempotency-Key creates one transaction; concurrent bank answers have one winner; the
 * ledger invariant holds after each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBilling } from '../../functions/billing/create-billing';
import { getBillingCustomers, getBillingMerchant } from '../../functions/bills/reads';
import { getDecision } from '../../functions/decisions/views';
import { startTestApp, type TestApp } from '../support/app';
import { billsOf, counters, getBill, ledgerProblems } from '../support/billing-table';
import { agreement, bankResponse, bill, events, pay, payee } from '../support/flows';
import { startReceiver, type Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  // Room for the bursts below within one rate-limit window.
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

const LIMITS = "Billing exceeds the customer's spending limits";

describe('parallel bills against limits', () => {
  it('50 parallel bills against a daily limit never reserve more than the limit', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 100 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bill(t, a.merchant, [a.agreementPhrase], 10, { description: `burst ${i}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 403 || s === 409),
      statuses.join(','),
    ).toBe(true);
    const created = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status === 403)) expect(r.body[0].message).toBe(LIMITS);
    expect(created.length * 10).toBeLessThanOrEqual(100);
    // No contention refusal where the limit still had room: exactly the limit is used.
    expect(created.length).toBe(10);

    const stored = await billsOf(a.merchant.id);
    const live = stored.filter((b) => b.status === 'pending' || b.status === 'succeeded');
    expect(live.reduce((s, b) => s + b.amount, 0)).toBeLessThanOrEqual(10000);
    expect(stored.length).toBe(created.length);
    const c = await counters(a.decisionId);
    expect(c.day).toBe(live.reduce((s, b) => s + b.amount, 0));
    expect(c.week).toBe(c.day);
    expect(c.month).toBe(c.day);
  });

  it('parallel bills and pays of many pairs with mixed amounts keep every pair within its limits', async () => {
    const first = await agreement(t, { decision: 'approve_recurring', limits: { daily: 50, weekly: 70 } });
    const pairs = [first];
    for (let i = 0; i < 3; i++) {
      pairs.push(
        await agreement(t, {
          decision: 'approve_recurring',
          limits: { daily: 50, weekly: 70 },
          merchant: first.merchant,
          bank: first.bank,
        }),
      );
    }
    const amounts = [7, 13, 3.5, 21, 9.99, 1, 17];
    const calls = pairs.flatMap((p) =>
      Array.from({ length: 14 }, (_, i) =>
        i % 2 === 0
          ? bill(t, p.merchant, [p.agreementPhrase], amounts[i % amounts.length]!)
          : pay(t, p.merchant, [p.lookupPhrase], amounts[i % amounts.length]!),
      ),
    );
    const results = await Promise.all(calls);
    expect(
      results.every((r) => [201, 403, 409].includes(r.status)),
      results.map((r) => r.status).join(','),
    ).toBe(true);
    for (const p of pairs) {
      const c = await counters(p.decisionId);
      expect(c.day).toBeLessThanOrEqual(5000);
      expect(c.week).toBeLessThanOrEqual(7000);
      const live = (await billsOf(p.merchant.id)).filter((b) => b.customerId === p.customerId);
      expect(live.reduce((s, b) => s + b.amount, 0)).toBe(c.day);
    }
  });

  it('100 phrases in one request: each its own billing, all within limits', async () => {
    const first = await agreement(t, { decision: 'approve_recurring', limits: { single: 100 } });
    const more = await Promise.all(
      Array.from({ length: 19 }, () =>
        agreement(t, { decision: 'approve_recurring', limits: { single: 100 }, merchant: first.merchant, bank: first.bank }),
      ),
    );
    const phrases = [first, ...more].map((a) => a.agreementPhrase);
    const r = await bill(t, first.merchant, phrases, 100);
    expect(r.status).toBe(201);
    expect(new Set(r.body.map((e: any) => e.reference)).size).toBe(20);
    expect((await billsOf(first.merchant.id)).length).toBe(20);
  });
});

describe('retries', () => {
  it('a retried bill with the same Idempotency-Key creates one transaction (sequential and concurrent retries)', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', receiver: rx });
    const headers = { 'idempotency-key': `bill-${a.customerId}` };
    const r1 = await bill(t, a.merchant, [a.agreementPhrase], 42, { headers });
    expect(r1.status).toBe(201);
    const r2 = await bill(t, a.merchant, [a.agreementPhrase], 42, { headers });
    expect(r2.status).toBe(201);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(r2.body).toEqual(r1.body);
    // The same key with another body is refused.
    const r3 = await bill(t, a.merchant, [a.agreementPhrase], 43, { headers });
    expect(r3.status).toBe(409);
    expect(r3.body.message).toBe('Idempotency key reused with a different request');

    const h2 = { 'idempotency-key': `bill2-${a.customerId}` };
    const burst = await Promise.all(Array.from({ length: 8 }, () => bill(t, a.merchant, [a.agreementPhrase], 5, { headers: h2 })));
    const okOnes = burst.filter((r) => r.status === 201);
    expect(okOnes.length).toBeGreaterThanOrEqual(1);
    for (const r of burst.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.message).toBe('Request with this idempotency key is in progress');
    }
    expect(new Set(okOnes.map((r) => r.body[0].reference)).size).toBe(1);

    const stored = await billsOf(a.merchant.id);
    expect(stored.map((b) => b.amount).sort((x, y) => x - y)).toEqual([500, 4200]);
    await events(rx, a.hooks!.bank, 'billing.request', 2, (e) => e.data.customerId === a.customerId);
    await t.app.settle();
    const requests = rx
      .received(a.hooks!.bank.path)
      .map((q) => JSON.parse(q.body))
      .filter((e) => e.type === 'billing.request' && e.data.customerId === a.customerId);
    expect(new Set(requests.map((e) => e.id)).size).toBe(2);
  });

  it('a re-executed billing under the same seed (first execution committed, its answer lost) returns the same billing', async () => {
    const a = await agreement(t, { decision: 'approve_once', limits: { daily: 15 } });
    const merchant = (await getBillingMerchant(a.merchant.id))!;
    const customer = (await getBillingCustomers([a.customerId])).get(a.customerId)!;
    const input = {
      merchant,
      customer,
      amount: 1000,
      currency: 'NGN',
      description: 'retry',
      type: 'agreement' as const,
      idSeed: `key|bill|${a.merchant.id}|same-key|${a.agreementPhrase}`,
    };
    const first = await createBilling({ ...input, decision: await getDecision(a.decisionId) });
    expect(first.ok).toBe(true);
    const again = await createBilling({ ...input, decision: await getDecision(a.decisionId) });
    expect(again).toMatchObject({ ok: true, existing: true });
    if (first.ok && again.ok) expect(again.bill.billingRequestId).toBe(first.bill.billingRequestId);
    expect((await billsOf(a.merchant.id)).length).toBe(1);
    // Reserved once: 10 of 15 used, so 5 more fit and 6 do not.
    expect((await counters(a.decisionId)).day).toBe(1000);
  });
});

describe('concurrent bank answers', () => {
  it('approve and deny at once: one winner, the other 409; one billing.response; ledger and counters consistent', async () => {
    const p = await payee(t, { receiver: rx });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await pay(t, p.merchant, [p.lookupPhrase], 10 + i);
      expect(r.status).toBe(201);
      ids.push(r.body[0].billingRequestId);
    }
    await Promise.all(
      ids.map(async (id) => {
        const answers = await Promise.all([
          bankResponse(t, p.bank, id, 'approve_once'),
          bankResponse(t, p.bank, id, 'deny'),
          bankResponse(t, p.bank, id, 'approve_recurring'),
          bankResponse(t, p.bank, id, 'suspended'),
        ]);
        const winners = answers.filter((r) => r.status === 200);
        expect(winners).toHaveLength(1);
        for (const r of answers.filter((x) => x.status !== 200)) {
          expect(r.status).toBe(409);
          expect(r.body.message).toBe('Billing request has already been answered');
        }
        const stored = await getBill(id);
        expect(stored!.status).toBe(winners[0]!.body.data.status);
      }),
    );
    await t.app.settle();
    for (const id of ids) {
      const evs = await events(rx, p.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === id);
      expect(evs).toHaveLength(1);
    }
    const all = await billsOf(p.merchant.id);
    const succeeded = all.filter((b) => b.status === 'succeeded').reduce((s, b) => s + b.amount, 0);
    const decisionId = all[0]!.decisionId;
    expect((await counters(decisionId)).day).toBe(succeeded);
    expect(await ledgerProblems(p.merchant.id)).toEqual([]);
  });

  it('many approvals of one merchant at once (hot balance and settlement items): all succeed, ledger invariant holds', async () => {
    const first = await agreement(t, { decision: 'approve_recurring' });
    const pairs = [
      first,
      ...(await Promise.all(
        Array.from({ length: 11 }, () => agreement(t, { decision: 'approve_recurring', merchant: first.merchant, bank: first.bank })),
      )),
    ];
    const r = await bill(
      t,
      first.merchant,
      pairs.map((p) => p.agreementPhrase),
      3,
    );
    expect(r.status).toBe(201);
    const answers = await Promise.all(r.body.map((el: any) => bankResponse(t, first.bank, el.billingRequestId, 'approve_recurring')));
    expect(answers.map((x) => x.status)).toEqual(answers.map(() => 200));
    expect(await ledgerProblems(first.merchant.id)).toEqual([]);
  });
});
