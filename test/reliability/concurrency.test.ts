/**
 * Concurrency (reliability suite 4): the COMBINATIONS the feature tests do not
 * cover one by one (test/integration/billing-concurrency, refunds, tick, recurring-runs
 * cover each race alone):
 *
 *   - bills, one-time pays, bank answers and refunds interleaved on one merchant;
 *   - scheduler ticks racing bank answers on billings at their expiry;
 *   - three concurrent ticks over mixed due kinds (settlement, refund completion, expiry);
 *   - the same Idempotency-Key sent 20 times in parallel on seven different POST routes.
 *
 * Totals must be exact: succeeded + pending within the limits and equal to the counters,
 * refunds within the amount, one outcome (and one event) per billing, one resource per
 * key, and the whole-table invariants (test/support/invariants.ts) after each.
 */
import { describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { counters } from '../support/billing-table';
import { agreement, bankResponse, bill, pay, payee, receivedEvents, type Agreement } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { checkInvariants, dueCount, scanAll } from '../support/invariants';
import { premiumMerchant } from '../support/reliability-world';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;

withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { RATE_LIMIT_PER_MINUTE: '1000000', REFUND_AUTO_COMPLETE_SECONDS: '1' },
);

const billsOf = async (merchantId: string) =>
  (await scanAll()).filter((i) => String(i.pk).startsWith('BILL#') && i.merchantId === merchantId) as unknown as BillItem[];

async function expectClean(): Promise<void> {
  await t.app.settle(30_000);
  const report = await checkInvariants({ receiver: rx, deliveries: 'final' });
  expect(report.problems, report.problems.join('\n')).toEqual([]);
}

describe('interleaved on one merchant', () => {
  it('bills, pays, bank answers and refunds at once: limits, refundable amounts and the ledger stay exact', async () => {
    const { provider, merchant } = await premiumMerchant(t);
    const bank = await t.participant('bank');
    const pairs: Agreement[] = [];
    for (let i = 0; i < 3; i++)
      pairs.push(
        await agreement(t, { decision: 'approve_recurring', limits: { daily: 100, single: 60 }, merchant, provider, bank, receiver: rx }),
      );
    // Two captured billings of 40 per customer to refund (80 of each daily 100 used).
    const captured: { id: string; reference: string }[] = [];
    for (const p of pairs) {
      for (let k = 0; k < 2; k++) {
        const r = await bill(t, merchant, [p.agreementPhrase], 40);
        expect(r.status).toBe(201);
        expect((await bankResponse(t, bank, r.body[0].billingRequestId, 'approve_recurring')).status).toBe(200);
        captured.push({ id: r.body[0].billingRequestId, reference: r.body[0].reference });
      }
    }
    const statuses: number[] = [];
    const answers: Promise<unknown>[] = [];
    let n = 0;
    const answerSoon = (id: string) => {
      // Approve two of three, deny the third: a deny frees room for the bills still racing.
      const action = n++ % 3 === 2 ? 'deny' : 'approve_recurring';
      answers.push(bankResponse(t, bank, id, action).then((r) => statuses.push(r.status)));
    };
    await Promise.all([
      ...pairs.flatMap((p) =>
        Array.from({ length: 8 }, (_, i) =>
          (i % 3 === 0 ? pay(t, merchant, [p.lookupPhrase], 3) : bill(t, merchant, [p.agreementPhrase], 7)).then((r) => {
            statuses.push(r.status);
            if (r.status === 201) answerSoon(r.body[0].billingRequestId);
          }),
        ),
      ),
      ...captured.flatMap((c) =>
        Array.from({ length: 6 }, () =>
          t
            .call('POST', '/v1/refunds/initiate', { key: merchant.apiKey, body: { reference: c.reference, amount: 15 } })
            .then((r) => statuses.push(r.status)),
        ),
      ),
    ]);
    await Promise.all(answers);
    expect(
      statuses.every((s) => [200, 201, 400, 403, 409].includes(s)),
      statuses.join(','),
    ).toBe(true);

    const bills = await billsOf(merchant.id);
    for (const p of pairs) {
      const live = bills.filter((b) => b.customerId === p.customerId && (b.status === 'succeeded' || b.status === 'pending'));
      const sum = live.reduce((s, b) => s + b.amount, 0);
      expect(sum).toBeLessThanOrEqual(10_000);
      expect((await counters(p.decisionId)).day).toBe(sum);
    }
    for (const c of captured) {
      const b = bills.find((x) => x.billingRequestId === c.id)!;
      // 15 + 15 fit in 40, a third does not.
      expect(b.refundReserved).toBe(3_000);
    }
    await expectClean();
  });
});

describe('ticks racing bank answers', () => {
  it('at the expiry of 10 approvals, three ticks and the bank race: each billing ends once (succeeded or expired), one billing.response each', async () => {
    const p = await payee(t, { receiver: rx });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await pay(t, p.merchant, [p.lookupPhrase], 2 + i);
      expect(r.status).toBe(201);
      ids.push(r.body[0].billingRequestId);
    }
    const expiresAt = Math.max(...(await billsOf(p.merchant.id)).map((b) => Date.parse(b.expiresAt!)));
    const at = new Date(expiresAt + 1_000);
    const answered = new Map<string, number>();
    await Promise.all([
      t.app.tick(at),
      t.app.tick(at),
      t.app.tick(at),
      ...ids.map(async (id, i) => {
        await sleep((i % 5) * 40);
        const r = await bankResponse(t, p.bank, id, 'approve_once');
        answered.set(id, r.status);
        expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
      }),
    ]);
    await t.app.settle(30_000);
    const bills = await billsOf(p.merchant.id);
    for (const id of ids) {
      const b = bills.find((x) => x.billingRequestId === id)!;
      expect(['succeeded', 'expired']).toContain(b.status);
      expect(b.status === 'succeeded', `${id}: answer ${answered.get(id)}, status ${b.status}`).toBe(answered.get(id) === 200);
      const responses = receivedEvents(rx, p.hooks!.merchant, 'billing.response').filter((e) => e.data.billingRequestId === id);
      expect(
        responses.map((e) => e.data.status),
        id,
      ).toEqual([b.status]);
    }
    await expectClean();
  });
});

describe('concurrent ticks over mixed due kinds', () => {
  it('three ticks at once settle each batch once, complete each refund once and expire each approval once', async () => {
    const { provider, merchant } = await premiumMerchant(t);
    const bank = await t.participant('bank');
    const pairs: Agreement[] = [];
    for (let i = 0; i < 3; i++) pairs.push(await agreement(t, { decision: 'approve_recurring', merchant, provider, bank, receiver: rx }));
    const refunds: string[] = [];
    const pending: string[] = [];
    for (const p of pairs) {
      const r = await bill(t, merchant, [p.agreementPhrase], 50);
      expect((await bankResponse(t, bank, r.body[0].billingRequestId, 'approve_recurring')).status).toBe(200);
      const rf = await t.call('POST', '/v1/refunds/initiate', {
        key: merchant.apiKey,
        body: { reference: r.body[0].reference, amount: 10 },
      });
      expect(rf.status).toBe(201);
      refunds.push(rf.body.data.refundId);
      const py = await pay(t, merchant, [p.lookupPhrase], 4);
      expect(py.status).toBe(201);
      pending.push(py.body[0].billingRequestId);
    }
    await t.app.settle();
    const at = new Date(Date.now() + 12 * 86_400_000); // past the settlement day, every refund delay and approval window
    const due = await dueCount(at);
    const results = await Promise.all([t.app.tick(at), t.app.tick(at), t.app.tick(at)]);
    // Every due item claimed by exactly one of the three.
    expect(results.reduce((s, r) => s + r.claimed, 0)).toBe(due);
    await t.app.settle(30_000);

    const items = await scanAll();
    const byType = (type: string) =>
      items.filter((i) => String(i.pk).startsWith('EVT#') && i.type === type).map((e) => e.data as Record<string, unknown>);
    for (const id of refunds) {
      const done = byType('refund.updated').filter((d) => d.refundId === id && d.status === 'completed');
      expect(done, id).toHaveLength(1);
    }
    for (const id of pending) {
      const outcomes = byType('billing.response').filter((d) => d.billingRequestId === id);
      expect(
        outcomes.map((d) => d.status),
        id,
      ).toEqual(['expired']);
    }
    const settlements = byType('settlement.completed').filter((d) => d.merchantId === merchant.id || d.entityId === merchant.id);
    expect(settlements.length).toBeGreaterThanOrEqual(1);
    // A settlement's entry (on its record since issue 50): one per round, never two.
    const ledger = items.filter((i) => i.merchantId === merchant.id && i.kind === 'settlement' && i.debit !== undefined);
    expect(ledger.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ledger.map((e) => e.entryId)).size).toBe(ledger.length);
    const balance = await t.call('GET', '/v1/balance/details', { key: merchant.apiKey });
    expect(balance.status).toBe(200);
    await expectClean();
  });
});

describe('the same Idempotency-Key 20 times in parallel', () => {
  it('on seven POST routes: one resource per key; every answer is the first one (replayed) or 409 in progress', async () => {
    const { provider, merchant } = await premiumMerchant(t);
    const bank = await t.participant('bank');
    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 1_000 }, merchant, provider, bank, receiver: rx });
    const b = await bill(t, merchant, [a.agreementPhrase], 100);
    const billingRequestId = b.body[0].billingRequestId as string;
    const pendingPay = await pay(t, merchant, [a.lookupPhrase], 5);
    expect((await bankResponse(t, bank, billingRequestId, 'approve_recurring')).status).toBe(200);
    const run = Date.now().toString(36);

    const cases: { route: string; key: string; body: unknown; count: () => Promise<number> }[] = [
      {
        route: '/v1/refunds/initiate',
        key: merchant.apiKey,
        body: { reference: b.body[0].reference, amount: 1 },
        count: async () =>
          (await scanAll()).filter((i) => String(i.pk).startsWith('REFUND#') && i.billingRequestId === billingRequestId).length,
      },
      {
        route: '/v1/billing/bank-response',
        key: bank.apiKey,
        body: { billingRequestId: pendingPay.body[0].billingRequestId, action: 'approve_once', bankTransactionId: `BTX-${run}` },
        count: async () =>
          (await scanAll()).filter(
            (i) =>
              /^(LEDGER|SLINE)#/.test(String(i.pk)) && i.kind === 'capture' && i.billingRequestId === pendingPay.body[0].billingRequestId,
          ).length,
      },
      {
        route: '/v1/customer/pay',
        key: merchant.apiKey,
        body: { lookupPhrases: [a.lookupPhrase], amount: 6, currency: 'NGN', description: `idem ${run}` },
        count: async () => (await billsOf(merchant.id)).filter((x) => x.description === `idem ${run}`).length,
      },
      {
        route: '/v1/billing/intent',
        key: merchant.apiKey,
        body: { lookupPhrases: [a.lookupPhrase], currency: 'NGN', description: `intent ${run}` },
        count: async () => (await scanAll()).filter((i) => String(i.pk).startsWith('INTENT#') && i.description === `intent ${run}`).length,
      },
      {
        route: '/v1/webhooks/endpoints',
        key: merchant.apiKey,
        body: { url: `${rx.url}/idem-${run}` },
        count: async () =>
          (await scanAll()).filter((i) => String(i.pk) === `WHEP#${merchant.id}` && String(i.url ?? '').endsWith(`/idem-${run}`)).length,
      },
      {
        route: '/v1/billing/recurring/create',
        key: merchant.apiKey,
        body: {
          customerId: a.customerId,
          agreementPhrase: a.agreementPhrase,
          amount: 3,
          currency: 'NGN',
          frequency: 'monthly',
          startDate: '2031-06-01T09:00:00.000Z',
          description: `sched ${run}`,
        },
        count: async () => (await scanAll()).filter((i) => String(i.pk).startsWith('SCHED#') && i.description === `sched ${run}`).length,
      },
      {
        route: '/v1/provider/merchants',
        key: provider.apiKey,
        body: { merchants: [{ name: `Idem ${run}`, email: `idem-${run}@example.com` }] },
        count: async () => (await scanAll()).filter((i) => String(i.pk).startsWith('PART#') && i.name === `Idem ${run}`).length,
      },
    ];
    for (const c of cases) {
      const headers = { 'idempotency-key': `idem-${run}-${c.route}` };
      const answers = await Promise.all(Array.from({ length: 20 }, () => t.call('POST', c.route, { key: c.key, body: c.body, headers })));
      const done = answers.filter((r) => r.status !== 409 || !/in progress/.test(r.body?.message ?? ''));
      expect(done.length, `${c.route}: ${answers.map((r) => r.status).join(',')}`).toBeGreaterThanOrEqual(1);
      const first = done.find((r) => r.headers.get('idempotent-replayed') !== 'true') ?? done[0]!;
      expect(first.status, `${c.route}: ${JSON.stringify(first.body)}`).toBeLessThan(300);
      for (const r of done) {
        expect(r.status, c.route).toBe(first.status);
        expect(r.body, c.route).toEqual(first.body);
      }
      // A late retry replays too.
      const again = await t.call('POST', c.route, { key: c.key, body: c.body, headers });
      expect(again.headers.get('idempotent-replayed'), c.route).toBe('true');
      expect(again.body, c.route).toEqual(first.body);
      expect(await c.count(), `${c.route}: resources created`).toBe(1);
    }
    await expectClean();
  });
});
