/**
 * Customer protection, the decisions half (DESIGN 8.5): consent terms on a decision
 * (validFrom, validTo, spendingLimits.yearly in the Lagos calendar year, maxPayments, channel,
 * customerAcceptedAt), enforced atomically with the billing (no extra payment under
 * concurrency), given back by a refusal; `remaining` on decision reads; the decision's
 * history (every change a version, oldest first, nothing overwritten). Real local stack;
 * exact instants through recurring runs driven by the tick (a run bills at the tick's time).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { agreement, bankResponse, bill, decide, lookupPhraseFor, type Agreement } from '../support/flows';
import { getDecision } from '../../functions/decisions/views';
import { ledgerProblems } from '../support/billing-table';
import type { Receiver } from '../../local/receiver';
import { newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';

let t: TestApp;
let rx: Receiver;
// Room within one rate-limit window for the 50 parallel bills below and the client's retries
// of their 409s (a 429 there is the limit, not the consent terms; seen in CI on 1e4e8c3).
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { RATE_LIMIT_PER_MINUTE: '100000' },
);

const NOT_VALID = 'Customer approval is not valid at this time';
const NO_PAYMENTS = 'Customer approval has no payments left';
const LIMITS = "Billing exceeds the customer's spending limits";

const put = (a: Agreement, body: Record<string, unknown>) =>
  t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, { key: a.bank.apiKey, body });
const history = async (a: Agreement) => {
  const r = await t.call('GET', `/v1/customer-decisions/${a.decisionId}/history`, { key: a.merchant.apiKey });
  expect(r.status).toBe(200);
  return r.body.data.versions as Record<string, any>[];
};
const readDecision = async (a: Agreement) => {
  const r = await t.call('GET', `/v1/customer-decisions/${a.decisionId}`, { key: a.merchant.apiKey });
  expect(r.status).toBe(200);
  return r.body.data;
};
async function billOnce(a: Agreement, amount: number) {
  const r = await bill(t, a.merchant, [a.agreementPhrase], amount);
  return { status: r.status, element: r.body[0] as Record<string, any> };
}

describe('consent terms are stored, shown and validated (DESIGN 8.5)', () => {
  it("the bank's PUT sets terms; the decision shows them; bad terms are 400 and write nothing", async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    const terms = {
      validFrom: '2026-01-01T00:00:00.000Z',
      validTo: '2099-12-31T23:59:59.000Z',
      maxPayments: 12,
      channel: 'ussd',
      customerAcceptedAt: '2026-11-20T08:30:00+01:00',
    };
    const r = await put(a, { ...terms, spendingLimits: { monthly: 5000, yearly: 50000 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      ...terms,
      customerAcceptedAt: '2026-11-20T07:30:00.000Z',
      spendingLimits: { monthly: 5000, yearly: 50000 },
    });
    const d = await readDecision(a);
    expect(d).toMatchObject({ ...terms, customerAcceptedAt: '2026-11-20T07:30:00.000Z', spendingLimits: { monthly: 5000, yearly: 50000 } });

    // A term cleared (null) is absent from reads, like an unset spendingLimits period.
    expect((await put(a, { channel: null })).status).toBe(200);
    const cleared = await readDecision(a);
    expect('channel' in cleared).toBe(false);
    expect(cleared.maxPayments).toBe(12);

    const before = await getDecision(a.decisionId);
    const versions = (await history(a)).length;
    const bad: [Record<string, unknown>, string][] = [
      [{ validFrom: '2027-01-02T00:00:00Z', validTo: '2027-01-01T00:00:00Z' }, 'validTo'],
      [{ validTo: '2025-12-31T00:00:00Z' }, 'validTo'], // before the kept validFrom
      [{ maxPayments: 0 }, 'maxPayments'],
      [{ maxPayments: 2.5 }, 'maxPayments'],
      [{ channel: 'sms' }, 'channel'],
      [{ customerAcceptedAt: 'yesterday' }, 'customerAcceptedAt'],
      [{ spendingLimits: { yearly: -1 } }, 'spendingLimits.yearly'],
    ];
    for (const [body, path] of bad) {
      const res = await put(a, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toBe('Invalid request parameters');
      expect(
        res.body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await getDecision(a.decisionId)).toEqual(before);
    expect(await history(a)).toHaveLength(versions);
  });
});

describe('validity (validFrom, validTo)', () => {
  it('a billing before validFrom or after validTo is 403 with the exact message and writes nothing', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await put(a, { validFrom: future })).status).toBe(200);
    const early = await billOnce(a, 10);
    expect(early.status).toBe(403);
    expect(early.element).toMatchObject({ statusCode: 403, success: false, message: NOT_VALID, code: 'approval_not_valid' });

    expect((await put(a, { validFrom: null, validTo: new Date(Date.now() - 1000).toISOString() })).status).toBe(200);
    const late = await billOnce(a, 10);
    expect(late.element).toMatchObject({ statusCode: 403, message: NOT_VALID });
    expect((await readDecision(a)).lastUsed).toBeNull();

    expect((await put(a, { validTo: null })).status).toBe(200);
    expect((await billOnce(a, 10)).status).toBe(201);
  });

  it('validTo to the second: a run at validTo bills, a run one second later is refused (approval_not_valid) and the schedule pauses', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const validTo = '2028-02-10T10:00:00.000Z';
    expect((await put(a, { validTo })).status).toBe(200);
    const id = await newSchedule(t, a, { startDate: '2028-02-09T10:00:00.000Z', frequency: 'daily', amount: 20 });
    await tickAt(t, '2028-02-09T10:00:00.000Z');
    const [b1] = await runBills(id);
    expect((await bankResponse(t, a.bank, b1!.billingRequestId, 'approve_recurring')).status).toBe(200);
    await t.app.settle(30_000);

    await tickAt(t, validTo);
    const second = await runBills(id);
    expect(second.map((b) => b.createdAt)).toEqual(['2028-02-09T10:00:00.000Z', validTo]);
    expect((await bankResponse(t, a.bank, second[1]!.billingRequestId, 'approve_recurring')).status).toBe(200);
    await t.app.settle(30_000);

    // The next run made due now, then ticked one second after validTo.
    expect((await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    await tickAt(t, '2028-02-10T10:00:01.000Z');
    expect(await runBills(id)).toHaveLength(2);
    const s = await stored(id);
    expect(s).toMatchObject({ status: 'paused', pauseReason: 'approval_not_valid', pausedBy: 'service' });
  });
});

describe('maxPayments', () => {
  it('the last allowed payment passes, the next is refused; a declined billing gives its payment back', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    expect((await put(a, { maxPayments: 2 })).status).toBe(200);
    const first = await billOnce(a, 10);
    const second = await billOnce(a, 10);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect((await readDecision(a)).remaining.payments).toBe(0);
    const third = await billOnce(a, 10);
    expect(third.status).toBe(403);
    expect(third.element).toMatchObject({ statusCode: 403, success: false, message: NO_PAYMENTS, code: 'approval_no_payments_left' });

    // The bank declines the second: its payment is given back, and one more billing fits.
    expect((await bankResponse(t, a.bank, second.element.billingRequestId, 'deny')).status).toBe(200);
    expect((await readDecision(a)).remaining.payments).toBe(1);
    expect((await billOnce(a, 10)).status).toBe(201);
    expect((await billOnce(a, 10)).element.message).toBe(NO_PAYMENTS);
    expect((await getDecision(a.decisionId))!.paymentsUsed).toBe(2);
  });

  it('50 parallel bills against maxPayments 10: exactly 10 billings, the others refused with the message', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    expect((await put(a, { maxPayments: 10 })).status).toBe(200);
    // A client retries a 409 (contention on the customer, nothing written) as the message says,
    // after a short random pause as a real client would (not 50 loops hammering at once).
    const one = async () => {
      for (;;) {
        const r = await billOnce(a, 1);
        if (r.status !== 409) return r;
        await delay(20 + Math.random() * 80);
      }
    };
    const results = await Promise.all(Array.from({ length: 50 }, one));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.element, `status ${r.status}`).toMatchObject({ statusCode: 403, message: NO_PAYMENTS });
    expect((await getDecision(a.decisionId))!.paymentsUsed).toBe(10);
    expect((await readDecision(a)).remaining.payments).toBe(0);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });
});

describe('the yearly limit (Lagos calendar year)', () => {
  it('31 Dec 23:59:59 Lagos still counts in the old year (refused over the limit); 1 Jan 00:00:00 Lagos is a new year (billed)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    expect((await put(a, { customerDecision: 'approve_recurring', spendingLimits: { yearly: 30 } })).status).toBe(200);
    const id = await newSchedule(t, a, { startDate: '2027-12-30T12:00:00.000Z', frequency: 'daily', amount: 20 });

    await tickAt(t, '2027-12-30T12:00:00.000Z');
    const [b1] = await runBills(id);
    expect(b1!.createdAt).toBe('2027-12-30T12:00:00.000Z');
    expect((await bankResponse(t, a.bank, b1!.billingRequestId, 'approve_recurring')).status).toBe(200);
    await t.app.settle(30_000);

    // 22:59:59Z = 23:59:59 on 31 Dec in Lagos: 20 + 20 > 30 in 2027 -> refused (run_failed, not paused).
    expect((await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    await tickAt(t, '2027-12-31T22:59:59.000Z');
    expect(await runBills(id)).toHaveLength(1);
    expect((await stored(id)).lastRunStatus).toBe('refused');
    expect((await getDecision(a.decisionId))!.usedY2027).toBe(2000);

    // 23:00:00Z = 00:00:00 on 1 Jan 2028 in Lagos: a new year, billed.
    expect((await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    await tickAt(t, '2027-12-31T23:00:00.000Z');
    const bills = await runBills(id);
    expect(bills.map((b) => b.createdAt)).toEqual(['2027-12-30T12:00:00.000Z', '2027-12-31T23:00:00.000Z']);
    const d = await getDecision(a.decisionId);
    expect(d).toMatchObject({ usedY2027: 2000, usedY2028: 2000 });
  });

  it('a bill over what is left of the year is 403 with the limits message; remaining.yearly shows what is left', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    expect((await put(a, { spendingLimits: { yearly: 100, daily: 80 } })).status).toBe(200);
    expect((await billOnce(a, 60)).status).toBe(201);
    const d = await readDecision(a);
    expect(d.remaining).toEqual({ single: null, daily: 20, weekly: null, monthly: null, yearly: 40, payments: null });
    const over = await billOnce(a, 40.01);
    expect(over.element).toMatchObject({ statusCode: 403, message: LIMITS });
    expect((await billOnce(a, 20)).status).toBe(201);
    expect((await readDecision(a)).remaining).toMatchObject({ daily: 0, yearly: 20 });
  });
});

describe('a yearly limit set later counts the year so far', () => {
  it("billings made before the limit count against it, as a monthly limit set mid-month counts the month's", async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    // No consent term yet: billings are not counted on the decision, only in the period counters.
    expect((await billOnce(a, 60)).status).toBe(201);
    expect((await billOnce(a, 15.5)).status).toBe(201);
    expect((await getDecision(a.decisionId))!.paymentsUsed).toBeUndefined();
    expect((await put(a, { spendingLimits: { yearly: 100 } })).status).toBe(200);
    expect((await readDecision(a)).remaining).toMatchObject({ yearly: 24.5 });
    expect((await billOnce(a, 24.51)).element).toMatchObject({ statusCode: 403, message: LIMITS });
    expect((await billOnce(a, 24.5)).status).toBe(201);
    expect((await readDecision(a)).remaining).toMatchObject({ yearly: 0 });
  });
});

describe('remaining on the bank list (DESIGN 8.5)', () => {
  it("each decision of the bank's list has remaining for the current periods; null without limits", async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium', limits: { single: 50, weekly: 200 } });
    expect((await put(a, { maxPayments: 5 })).status).toBe(200);
    expect((await billOnce(a, 30)).status).toBe(201);
    const r = await t.call('GET', '/v1/bank/customer-decisions', {
      key: a.bank.apiKey,
      query: { customerId: a.customerId, entityId: a.merchant.id },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    expect(r.body.data[0]).toMatchObject({
      id: a.decisionId,
      maxPayments: 5,
      remaining: { single: 50, daily: null, weekly: 170, monthly: null, yearly: null, payments: 4 },
    });
  });
});

describe('history (DESIGN 8.5)', () => {
  it('intent-response -> bank PUT -> block: one version each, oldest first, with terms, actor and reason; the bank reads the same', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium', limits: { single: 100 } });
    expect((await put(a, { maxPayments: 3, channel: 'app', validTo: '2099-01-01T00:00:00Z' })).status).toBe(200);
    expect((await put(a, { blockMerchant: true })).status).toBe(200);
    const versions = await history(a);
    expect(versions.map((v) => [v.version, v.reason, v.actor.type])).toEqual([
      [1, 'intent_response', 'bank'],
      [2, 'bank_update', 'bank'],
      [3, 'bank_update', 'bank'],
    ]);
    expect(versions[0]).toEqual({
      version: 1,
      decision: 'approve_recurring',
      spendingLimits: { single: 100 },
      blockMerchant: false,
      validFrom: null,
      validTo: null,
      maxPayments: null,
      channel: null,
      customerAcceptedAt: null,
      actor: { type: 'bank' },
      changedAt: expect.any(String),
      reason: 'intent_response',
    });
    expect(versions[1]).toMatchObject({ maxPayments: 3, channel: 'app', validTo: '2099-01-01T00:00:00.000Z', blockMerchant: false });
    expect(versions[2]).toMatchObject({ maxPayments: 3, blockMerchant: true });
    const times = versions.map((v) => Date.parse(v.changedAt));
    expect([...times].sort((x, y) => x - y)).toEqual(times);

    const bank = await t.call('GET', `/v1/bank/customer-decisions/${a.decisionId}/history`, { key: a.bank.apiKey });
    expect(bank.status).toBe(200);
    expect(bank.body.data.versions).toEqual(versions);
  });

  it('the end of validity is a version by the system at validTo (through the due index), once; a new validTo moves it', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium' });
    expect((await put(a, { validTo: '2028-05-01T00:00:00Z' })).status).toBe(200);
    expect((await put(a, { validTo: '2028-06-01T00:00:00Z' })).status).toBe(200);
    const stamp = async (at: string) => {
      await t.app.tick(new Date(at));
      await t.app.settle(30_000);
      return (await history(a)).map((v) => [v.version, v.reason, v.actor.type]);
    };
    const before = [
      [1, 'intent_response', 'bank'],
      [2, 'bank_update', 'bank'],
      [3, 'bank_update', 'bank'],
    ];
    // The first validTo was replaced: nothing happens at it.
    expect(await stamp('2028-05-01T00:00:00.000Z')).toEqual(before);
    expect(await stamp('2028-05-31T23:59:59.000Z')).toEqual(before);
    expect(await stamp('2028-06-01T00:00:00.000Z')).toEqual([...before, [4, 'validity_expired', 'system']]);
    expect(await stamp('2028-06-02T00:00:00.000Z')).toHaveLength(4);
    const v4 = (await history(a))[3]!;
    expect(v4).toMatchObject({ validTo: '2028-06-01T00:00:00.000Z', changedAt: '2028-06-01T00:00:00.000Z', decision: 'approve_recurring' });
    expect((await getDecision(a.decisionId))!).toMatchObject({ version: 4 });
    expect((await getDecision(a.decisionId))!.dueSk).toBeUndefined();
  });

  it("another merchant's or another bank's decision: 404 `Customer decision not found`", async () => {
    const a = await agreement(t, { decision: 'approve_once' });
    const otherMerchant = await t.participant('merchant');
    const otherBank = await t.participant('bank');
    const m = await t.call('GET', `/v1/customer-decisions/${a.decisionId}/history`, { key: otherMerchant.apiKey });
    expect(m.status).toBe(404);
    expect(m.body).toMatchObject({ success: false, message: 'Customer decision not found' });
    const b = await t.call('GET', `/v1/bank/customer-decisions/${a.decisionId}/history`, { key: otherBank.apiKey });
    expect(b.status).toBe(404);
    expect(b.body).toMatchObject({ success: false, message: 'Customer decision not found' });
    const unknown = await t.call('GET', '/v1/customer-decisions/dec_unknown0000/history', { key: a.merchant.apiKey });
    expect(unknown.status).toBe(404);
  });
});

describe("the customer's consents in one view (DESIGN 10.5)", () => {
  const consents = async (a: Agreement, query: Record<string, string> = {}) => {
    const r = await t.call('GET', `/v1/bank/customers/${a.customerId}/consents`, { key: a.bank.apiKey, query });
    expect(r.status).toBe(200);
    return r.body.data as { consents: Record<string, any>[]; hasMore: boolean };
  };

  it('lists every standing consent across merchants; what it says is left is what the next bill may take, after bills, a refund, a skipped run and a revoke', async () => {
    const a = await recurringAgreement(t);
    expect(
      (await put(a, { spendingLimits: { single: 600, daily: 1000, monthly: 3000 }, maxPayments: 3, validTo: '2099-01-01T00:00:00.000Z' }))
        .status,
    ).toBe(200);
    // The same customer's consent with a second merchant (no limits), and a third merchant's denial (not standing).
    const other = await t.participant('merchant');
    const denied = await t.participant('merchant');
    for (const [m, decision] of [
      [other, 'approve_once'],
      [denied, 'deny'],
    ] as const) {
      const lookupPhrase = await lookupPhraseFor(t, m, a.email, a.bank.id);
      await decide(t, { bank: a.bank, merchant: m, customerId: a.customerId, lookupPhrase, decision });
    }

    // Two paid bills (300 + 200), a refund of the first, a schedule whose next run the bank skips.
    const paid: string[] = [];
    for (const amount of [300, 200]) {
      const b = await billOnce(a, amount);
      expect(b.status).toBe(201);
      expect((await bankResponse(t, a.bank, b.element.billingRequestId, 'approve_recurring')).status).toBe(200);
      paid.push(b.element.reference);
    }
    await t.app.settle(30_000);
    const refund = await t.call('POST', '/v1/refunds/initiate', { key: a.merchant.apiKey, body: { reference: paid[0], amount: 100 } });
    expect(refund.status).toBe(201);
    const scheduleId = await newSchedule(t, a, { startDate: '2098-01-15T09:00:00.000Z', amount: 50 });
    const skipped = await t.call('POST', `/v1/bank/subscriptions/${scheduleId}/skip`, { key: a.bank.apiKey, body: { reason: 'away' } });
    expect(skipped.status).toBe(200);

    const view = await consents(a);
    expect(view.hasMore).toBe(false);
    expect(view.consents.map((c) => c.merchant.id)).toEqual([other.id, a.merchant.id]);
    expect(view.consents[0]).toEqual({
      decisionId: expect.any(String),
      merchant: { id: other.id, name: other.name },
      decision: 'approve_once',
      spendingLimits: {},
      maxPayments: null,
      validFrom: null,
      validTo: null,
      schedules: [],
      remaining: { single: null, daily: null, weekly: null, monthly: null, yearly: null, payments: null },
    });
    const mine = view.consents[1]!;
    expect(mine).toMatchObject({
      decisionId: a.decisionId,
      merchant: { id: a.merchant.id, name: expect.any(String) },
      decision: 'approve_recurring',
      spendingLimits: { single: 600, daily: 1000, monthly: 3000 },
      maxPayments: 3,
      validTo: '2099-01-01T00:00:00.000Z',
      schedules: [{ scheduleId, status: 'active', amount: 50, nextRunAt: '2098-02-15T09:00:00.000Z' }],
      // A refund gives nothing back to the limits: the billing path counts what was billed.
      remaining: { single: 600, daily: 500, weekly: null, monthly: 2500, yearly: null, payments: 1 },
    });

    // The smallest amount left (daily 500): one kobo more is refused, exactly that amount is billed.
    const over = await billOnce(a, 500.01);
    expect(over.element).toMatchObject({ statusCode: 403, message: LIMITS });
    expect((await billOnce(a, 500)).status).toBe(201);
    expect((await consents(a)).consents[1]!.remaining).toEqual({
      single: 600,
      daily: 0,
      weekly: null,
      monthly: 2000,
      yearly: null,
      payments: 0,
    });
    expect((await billOnce(a, 1)).element).toMatchObject({ statusCode: 403, message: NO_PAYMENTS });

    // Paged as section 8.
    const first = await consents(a, { limit: '1' });
    expect([first.consents.length, first.hasMore]).toEqual([1, true]);
    const second = await consents(a, { limit: '1', startingAfter: first.consents[0]!.decisionId });
    expect([second.consents.map((c) => c.decisionId), second.hasMore]).toEqual([[a.decisionId], false]);

    // Revoked (the bank's existing change to deny): gone from the view, and billing is refused.
    expect((await put(a, { customerDecision: 'deny' })).status).toBe(200);
    expect((await consents(a)).consents.map((c) => c.merchant.id)).toEqual([other.id]);
    expect((await billOnce(a, 1)).element).toMatchObject({ statusCode: 403, message: 'Customer has not approved billing' });

    // Another bank's customer is 404, as an unknown one.
    const stranger = await t.participant('bank');
    const foreign = await t.call('GET', `/v1/bank/customers/${a.customerId}/consents`, { key: stranger.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Customer not found');
  });
});
