/**
 * Recurring runs driven by the scheduler tick: each due date bills exactly once,
 * the bank's answer moves the schedule on (totalBillings / failedAttempts, next date,
 * completion after maxBillings or endDate), pause skips due dates, resume recomputes,
 * concurrent ticks and repeated jobs never double-bill, refusals at run time (permission,
 * trust, limits), the bank's answer deadline. Real local stack, real receivers; time is
 * driven with t.app.tick(date).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db } from '../../functions/platform/clients';
import { table } from '../../functions/platform/table';
import { RECURRING_RUN_KIND } from '../../functions/recurring/policy';
import { runRecurring } from '../../functions/billing/recurring-run';
import { counters, getBill, ledgerProblems } from '../support/billing-table';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { bankResponse, events, receivedEvents, type Agreement } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { addDays, newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
const cleanup: Array<{ a: Agreement; id: string }> = [];

withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});
// Later tests tick further ahead: cancel what a test leaves active so it does not run there.
afterEach(async () => {
  for (const { a, id } of cleanup.splice(0)) await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
});

async function schedule(a: Agreement, over: Record<string, unknown>): Promise<string> {
  const id = await newSchedule(t, a, over);
  cleanup.push({ a, id });
  return id;
}

const get = async (a: Agreement, id: string) => {
  const r = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  expect(r.status).toBe(200);
  return r.body.data;
};

/** The single pending run billing of the schedule's run `seq`. */
async function runBill(id: string, seq: number) {
  const all = await runBills(id);
  const b = all.find((x) => x.runSeq === seq);
  expect(b, `run ${seq} of ${id}: ${JSON.stringify(all.map((x) => x.runSeq))}`).toBeDefined();
  return b!;
}

describe('a monthly schedule', () => {
  it('bills on each due date exactly once (requiresApproval false, scheduleId), counts successes and completes after maxBillings', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-01-31T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, maxBillings: 3, amount: 2500 });
    const dates = [start, '2027-02-28T09:00:00.000Z', '2027-03-31T09:00:00.000Z'];

    // Not yet due.
    await tickAt(t, addDays(start, -1));
    expect(await runBills(id)).toHaveLength(0);

    for (const [i, date] of dates.entries()) {
      const seq = i + 1;
      await tickAt(t, date);
      // A second tick at the same time (or later, before the answer) changes nothing.
      await tickAt(t, date);
      expect(await runBills(id)).toHaveLength(seq);
      const b = await runBill(id, seq);
      expect(b).toMatchObject({
        type: 'recurring',
        status: 'pending',
        requiresApproval: false,
        scheduleId: id,
        amount: 250000,
        createdAt: date,
      });
      expect((await get(a, id)).status).toBe('processing');

      const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.billingRequestId === b.billingRequestId);
      expect(req!.data).toMatchObject({
        type: 'recurring',
        requiresApproval: false,
        scheduleId: id,
        amount: 2500,
        currency: 'NGN',
        customerId: a.customerId,
        clientRef: a.clientRef,
        entityId: a.merchant.id,
        merchantName: a.merchant.name,
        description: 'Gym membership',
      });
      expect(req!.data.expiresAt).toBeUndefined();

      const br = await bankResponse(t, a.bank, b.billingRequestId, 'approve_recurring');
      expect(br.status).toBe(200);
      const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b.billingRequestId);
      expect(res!.data).toMatchObject({ status: 'succeeded', customerAction: 'approved', scheduleId: id });

      const s = await get(a, id);
      expect(s.totalBillings).toBe(seq);
      expect(s.failedAttempts).toBe(0);
      if (seq < 3) {
        expect(s.status).toBe('active');
        expect(s.nextBillingDate).toBe(dates[seq]);
      }
    }

    const done = await get(a, id);
    expect(done).toMatchObject({ status: 'completed', totalBillings: 3, maxBillings: 3, nextBillingDate: null });
    const [completed] = await events(rx, a.hooks!.merchant, 'schedule.completed', 1, (e) => e.data.scheduleId === id);
    expect(completed!.data).toMatchObject({
      scheduleId: id,
      status: 'completed',
      totalBillings: 3,
      reason: 'max_billings',
      entityId: a.merchant.id,
    });
    await events(rx, a.hooks!.provider!, 'schedule.completed', 1, (e) => e.data.scheduleId === id);

    // Nothing after completion.
    await tickAt(t, '2027-04-30T09:00:00.000Z');
    await tickAt(t, '2027-06-30T09:00:00.000Z');
    const all = await runBills(id);
    expect(all.map((b) => b.runSeq)).toEqual([1, 2, 3]);
    expect(all.map((b) => b.createdAt)).toEqual(dates);
    expect((await stored(id)).dueSk).toBeUndefined();
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it('completes when the next date would pass endDate (a date equal to endDate still bills)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-08-02T10:00:00.000Z';
    const id = await schedule(a, { frequency: 'weekly', startDate: start, endDate: addDays(start, 14) });
    for (const [i, d] of [0, 7, 14].entries()) {
      await tickAt(t, addDays(start, d));
      const b = await runBill(id, i + 1);
      expect((await bankResponse(t, a.bank, b.billingRequestId, 'approve_once')).status).toBe(200);
    }
    const s = await get(a, id);
    expect(s).toMatchObject({ status: 'completed', totalBillings: 3, nextBillingDate: null });
    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.completed', 1, (e) => e.data.scheduleId === id);
    expect(ev!.data.reason).toBe('end_date');
    await tickAt(t, addDays(start, 21));
    expect(await runBills(id)).toHaveLength(3);
  });

  it('is due at once when startDate is not in the future', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const r = await t.call('POST', '/v1/billing/recurring/create', {
      key: a.merchant.apiKey,
      body: {
        customerId: a.customerId,
        agreementPhrase: a.agreementPhrase,
        amount: 10,
        currency: 'NGN',
        frequency: 'monthly',
        startDate: start,
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.nextBillingDate).toBe(start);
    cleanup.push({ a, id: r.body.data.scheduleId });
    await tickAt(t, new Date());
    expect(await runBills(r.body.data.scheduleId)).toHaveLength(1);
  });
});

describe('concurrency: one run per due date', () => {
  it('two concurrent ticks never double-bill', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-09-15T08:00:00.000Z';
    const id = await schedule(a, { startDate: start, frequency: 'daily' });
    const [r1, r2] = await Promise.all([t.app.tick(new Date(start)), t.app.tick(new Date(start))]);
    await t.app.settle(30_000);
    expect(r1.claimed + r2.claimed).toBeGreaterThanOrEqual(1);
    expect(await runBills(id)).toHaveLength(1);
    // The bank got exactly one billing.request for the schedule.
    await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.scheduleId === id);
    await tickAt(t, start);
    expect(receivedEvents(rx, a.hooks!.bank, 'billing.request').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
  });

  it('the same claimed job executed twice at once (a retried or duplicated message) bills once', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-09-20T08:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    // Claim the due entry the way the tick does, then run the job twice concurrently.
    const s = await stored(id);
    const leasedSk = `${addDays(start, 1)}#${RECURRING_RUN_KIND}#${id}`;
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: s.pk, sk: s.sk },
        UpdateExpression: 'SET dueSk = :l',
        ConditionExpression: 'dueSk = :d',
        ExpressionAttributeValues: { ':l': leasedSk, ':d': s.dueSk },
      }),
    );
    const job = { kind: RECURRING_RUN_KIND, id, key: { pk: s.pk, sk: s.sk }, dueAt: start, leasedSk, now: start };
    await Promise.all([runRecurring(job), runRecurring(job), runRecurring(job)]);
    await runRecurring(job);
    const all = await runBills(id);
    expect(all).toHaveLength(1);
    const after = await stored(id);
    expect(after).toMatchObject({ status: 'processing', seq: 2, runSeq: 1, runBillingRequestId: all[0]!.billingRequestId });
  });

  it('ten schedules due at once, five concurrent ticks: ten billings', async () => {
    const first = await recurringAgreement(t, { receiver: rx });
    const start = '2027-09-25T08:00:00.000Z';
    const ids: string[] = [await schedule(first, { startDate: start, amount: 10 })];
    // Two schedules of one customer (they share the decision and its counters) and eight more customers.
    ids.push(await schedule(first, { startDate: start, amount: 11 }));
    for (let i = 0; i < 8; i++) {
      const a = await recurringAgreement(t, { receiver: rx, bank: first.bank, merchant: first.merchant, provider: first.provider });
      ids.push(await schedule(a, { startDate: start, amount: 12 + i }));
    }
    await Promise.all(Array.from({ length: 5 }, () => t.app.tick(new Date(start))));
    await t.app.settle(30_000);
    for (const id of ids) expect(await runBills(id)).toHaveLength(1);
  });
});

describe('failed runs', () => {
  it('a run the bank declines increments failedAttempts and is retried the next day (willRetry); success then moves to the next period', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-10-05T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    const first = await runBill(id, 1);
    expect((await bankResponse(t, a.bank, first.billingRequestId, 'deny', null, 'insufficient_funds')).status).toBe(200);
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === first.billingRequestId);
    expect(res!.data).toMatchObject({
      status: 'declined',
      customerAction: 'declined',
      reason: 'insufficient_funds',
      scheduleId: id,
      willRetry: true,
      nextRetryAt: addDays(start, 1),
    });

    let s = await get(a, id);
    expect(s).toMatchObject({ status: 'active', totalBillings: 0, failedAttempts: 1, nextBillingDate: addDays(start, 1) });
    // The reservation was released.
    expect((await counters(a.decisionId)).month).toBe(0);

    await tickAt(t, addDays(start, 1));
    const retry = await runBill(id, 2);
    expect(retry.createdAt).toBe(addDays(start, 1));
    expect((await bankResponse(t, a.bank, retry.billingRequestId, 'approve_recurring')).status).toBe(200);
    const [ok] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === retry.billingRequestId);
    expect(ok!.data).toMatchObject({ status: 'succeeded', willRetry: false });
    expect(ok!.data.nextRetryAt).toBeUndefined();
    s = await get(a, id);
    expect(s).toMatchObject({ status: 'active', totalBillings: 1, failedAttempts: 1, nextBillingDate: '2027-11-05T09:00:00.000Z' });
  });

  it('after three retries the period is given up and the next one is due; the last attempt says willRetry false', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-11-08T09:00:00.000Z'; // a Monday: the three retries fall on Tue, Wed, Thu
    const id = await schedule(a, { startDate: start });
    for (let attempt = 0; attempt < 4; attempt++) {
      await tickAt(t, addDays(start, attempt));
      const b = await runBill(id, attempt + 1);
      expect((await bankResponse(t, a.bank, b.billingRequestId, 'deny', null, 'bank_declined')).status).toBe(200);
      const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b.billingRequestId);
      expect(res!.data, `attempt ${attempt}`).toMatchObject(
        attempt < 3 ? { willRetry: true, nextRetryAt: addDays(start, attempt + 1) } : { willRetry: false },
      );
    }
    const s = await get(a, id);
    expect(s).toMatchObject({ status: 'active', totalBillings: 0, failedAttempts: 4, nextBillingDate: '2027-12-08T09:00:00.000Z' });
    await tickAt(t, addDays(start, 5));
    expect(await runBills(id)).toHaveLength(4);
  });

  it("the customer's refusal (deny, suspended) is never retried: willRetry false, the next period is due", async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-11-15T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    const b = await runBill(id, 1);
    expect((await bankResponse(t, a.bank, b.billingRequestId, 'suspended', null)).status).toBe(200);
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b.billingRequestId);
    expect(res!.data).toMatchObject({ status: 'declined', reason: 'customer_suspended', willRetry: false });
    expect(res!.data.nextRetryAt).toBeUndefined();
    expect(await get(a, id)).toMatchObject({ status: 'active', failedAttempts: 1, nextBillingDate: '2027-12-15T09:00:00.000Z' });
    await tickAt(t, addDays(start, 1));
    expect(await runBills(id)).toHaveLength(1);
  });

  it('a bank that does not answer within a day: the billing fails (bank_no_answer), a failed attempt', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2027-12-01T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    const b = await runBill(id, 1);
    await tickAt(t, addDays(start, 0.5));
    expect((await getBill(b.billingRequestId))!.status).toBe('pending');
    await tickAt(t, addDays(start, 1));
    expect(await getBill(b.billingRequestId)).toMatchObject({ status: 'failed', reason: 'bank_no_answer' });
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b.billingRequestId);
    expect(res!.data).toMatchObject({
      status: 'failed',
      reason: 'bank_no_answer',
      scheduleId: id,
      willRetry: true,
      nextRetryAt: addDays(start, 1),
    });
    const s = await stored(id);
    expect(s.failedAttempts).toBe(1);
    // The retry is due at the same instant (one day after the run): the next tick runs it.
    expect(s.nextBillingDate).toBe(addDays(start, 1));
    await tickAt(t, addDays(start, 1));
    expect(await runBills(id)).toHaveLength(2);
    // The bank's late answer to the failed billing is refused.
    expect((await bankResponse(t, a.bank, b.billingRequestId, 'approve_recurring')).status).toBe(409);
  });

  it('spending limits at run time: no billing, a failed attempt, schedule.run_failed, retried the next day', async () => {
    const a = await recurringAgreement(t, { receiver: rx, limits: { single: 100 } });
    const start = '2028-01-12T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, amount: 80 });
    const put = await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, {
      key: a.bank.apiKey,
      body: { spendingLimits: { single: 50 } },
    });
    expect(put.status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    const s = await get(a, id);
    expect(s).toMatchObject({ status: 'active', failedAttempts: 1, totalBillings: 0, nextBillingDate: addDays(start, 1) });
    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.run_failed', 1, (e) => e.data.scheduleId === id);
    expect(ev!.data).toMatchObject({
      scheduleId: id,
      reason: 'spending_limit_exceeded',
      customerAction: 'declined',
      runSeq: 1,
      failedAttempts: 1,
      willRetry: true,
      nextRetryAt: addDays(start, 1),
    });
    expect((await counters(a.decisionId)).month).toBe(0);
  });
});

describe('the permission or the trust goes away', () => {
  it('the bank changes the decision to approve_once: runs stop (refused, schedule paused with the reason)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-02-01T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    const put = await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, {
      key: a.bank.apiKey,
      body: { customerDecision: 'approve_once' },
    });
    expect(put.status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    const s = await get(a, id);
    expect(s).toMatchObject({ status: 'paused', failedAttempts: 1, pauseReason: 'permission_revoked' });
    const [failed] = await events(
      rx,
      a.hooks!.merchant,
      'schedule.run_failed',
      1,
      (e) => e.data.scheduleId === id && e.data.reason === 'permission_revoked',
    );
    expect(failed!.data).toMatchObject({ willRetry: false });
    expect(failed!.data.nextRetryAt).toBeUndefined();
    const [paused] = await events(rx, a.hooks!.merchant, 'schedule.paused', 1, (e) => e.data.scheduleId === id);
    expect(paused!.data).toMatchObject({ reason: 'permission_revoked', pausedBy: 'service', status: 'paused' });
    // Paused: later dates do nothing.
    await tickAt(t, '2028-03-01T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(0);
  });

  it('the customer blocks the merchant: refused, paused (merchant_blocked)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-02-03T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    expect(
      (await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, { key: a.bank.apiKey, body: { blockMerchant: true } })).status,
    ).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    expect(await get(a, id)).toMatchObject({ status: 'paused', pauseReason: 'merchant_blocked', failedAttempts: 1 });
  });

  it('DESIGN 8.1: the provider un-trusts the merchant: the run never debits without approval (refused before billing, paused merchant_not_premium, no billing.request)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-02-07T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    const down = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: a.provider!.apiKey,
      body: { entityId: a.merchant.id, trusted: false },
    });
    expect(down.status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    expect(await get(a, id)).toMatchObject({ status: 'paused', pauseReason: 'merchant_not_premium', failedAttempts: 1 });
    await sleep(300);
    expect(receivedEvents(rx, a.hooks!.bank, 'billing.request').filter((e) => e.data.scheduleId === id)).toHaveLength(0);
  });

  it('the merchant is no longer premium: refused, paused (merchant_not_premium); resumed after re-trust it bills', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-02-05T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    const down = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: a.provider!.apiKey,
      body: { entityId: a.merchant.id, trusted: true, trustLevel: 'enhanced' },
    });
    expect(down.status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    expect(await get(a, id)).toMatchObject({ status: 'paused', pauseReason: 'merchant_not_premium' });

    const up = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: a.provider!.apiKey,
      body: { entityId: a.merchant.id, trusted: true, trustLevel: 'premium' },
    });
    expect(up.status).toBe(200);
    const resumed = await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey });
    expect(resumed.status).toBe(200);
    // Real time is before the (future) startDate: the same period is due again.
    expect(resumed.body.data).toMatchObject({ status: 'active', nextBillingDate: start });
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(1);
  });
});

describe('pause and resume', () => {
  it('pause skips due dates; resume recomputes from the anchor (never in the past)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-04-10T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    const p = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { reason: 'customer travelling' } });
    expect(p.status).toBe(200);
    await tickAt(t, start);
    await tickAt(t, '2028-05-10T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(0);
    expect((await stored(id)).dueSk).toBeUndefined();

    const r = await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: {} });
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.data.nextBillingDate)).toBeGreaterThan(Date.now());
    expect(r.body.data.nextBillingDate).toBe(start);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(1);
  });

  it('resume skips the periods missed while paused: the next date is the first occurrence after now', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    // Daily, anchored 3.5 days ago: due at once when created; paused before any tick.
    const start = new Date(Date.now() - 3.5 * 86_400_000).toISOString();
    const id = await schedule(a, { startDate: start, frequency: 'daily' });
    expect((await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey })).status).toBe(200);
    await tickAt(t, new Date());
    expect(await runBills(id)).toHaveLength(0);

    const before = Date.now();
    const r = await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey });
    expect(r.status).toBe(200);
    // Occurrences 0..3 (all in the past) are skipped; occurrence 4 is 0.5 days ahead.
    expect(r.body.data.nextBillingDate).toBe(addDays(start, 4));
    expect(Date.parse(r.body.data.nextBillingDate)).toBeGreaterThan(before);
    expect(Date.parse(r.body.data.resumedAt)).toBeGreaterThanOrEqual(before - 1000);
    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.resumed', 1, (e) => e.data.scheduleId === id);
    expect(ev!.data.nextBillingDate).toBe(addDays(start, 4));

    await tickAt(t, new Date());
    expect(await runBills(id)).toHaveLength(0);
    await tickAt(t, addDays(start, 4));
    const all = await runBills(id);
    expect(all).toHaveLength(1);
    expect(all[0]!.runSeq).toBe(1);
  });

  it('pausing while a run is at the bank: the run still counts, no further run until resumed', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-06-01T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    const b = await runBill(id, 1);
    expect((await get(a, id)).status).toBe('processing');
    const p = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey });
    expect(p.status).toBe(200);
    expect(p.body.data.status).toBe('paused');
    expect((await bankResponse(t, a.bank, b.billingRequestId, 'approve_recurring')).status).toBe(200);
    const s = await get(a, id);
    expect(s).toMatchObject({ status: 'paused', totalBillings: 1, nextBillingDate: '2028-07-01T09:00:00.000Z' });
    await tickAt(t, '2028-07-01T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(1);
    const r = await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey });
    expect(r.body.data).toMatchObject({ status: 'active', nextBillingDate: '2028-07-01T09:00:00.000Z' });
    await tickAt(t, '2028-07-01T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(2);
  });

  it('cancelling while a run is at the bank: the outcome is recorded, nothing runs again', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-08-01T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    const b = await runBill(id, 1);
    const c = await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(c.body.data.status).toBe('cancelled');
    expect((await bankResponse(t, a.bank, b.billingRequestId, 'approve_recurring')).status).toBe(200);
    const s = await stored(id);
    expect(s).toMatchObject({ status: 'cancelled', totalBillings: 1 });
    expect(s.runSeq).toBeUndefined();
    expect(s.dueSk).toBeUndefined();
    await tickAt(t, '2028-09-01T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(1);
  });
});
