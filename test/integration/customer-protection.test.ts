/**
 * Customer protection, the recurring half (DESIGN 8.5): the bank's pre-debit notice
 * `billing.upcoming` (at runAt - PRE_DEBIT_NOTICE_SECONDS, exactly once per period, also
 * across retries and a pause/resume), the bank skipping or cancelling its customer's schedule
 * (`schedule.run_skipped` / `schedule.cancelled` with `actor: "bank"` and the reason; another
 * bank's schedule is 404), and `actor` on every `schedule.*` event. Real local stack, real
 * receivers; time is driven with the tick (`tickAt`), the notice is the default 24 h.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { bankResponse, events, receivedEvents, type Agreement } from '../support/flows';
import { ledgerProblems } from '../support/billing-table';
import type { Receiver } from '../../local/receiver';
import { EVENT_CATALOG } from '../../functions/events/schemas';
import { addDays, newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
const cleanup: Array<{ a: Agreement; id: string }> = [];

withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { PRE_DEBIT_NOTICE_SECONDS: '86400' },
);
// Later tests tick further ahead: cancel what a test leaves active so it does not run there.
afterEach(async () => {
  for (const { a, id } of cleanup.splice(0)) await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
});

async function schedule(a: Agreement, over: Record<string, unknown>): Promise<string> {
  const id = await newSchedule(t, a, over);
  cleanup.push({ a, id });
  return id;
}

const secondsBefore = (iso: string, s: number) => new Date(Date.parse(iso) - s * 1000).toISOString();
const notices = (a: Agreement, id: string) => receivedEvents(rx, a.hooks!.bank, 'billing.upcoming').filter((e) => e.data.scheduleId === id);
/** Webhooks are delivered after the tick's jobs: give the receiver a moment to have them all. */
const quiet = () => sleep(400);

describe('pre-debit notice: billing.upcoming to the bank (DESIGN 8.5)', () => {
  it('arrives at runAt - 24 h (not a second earlier), exactly once, with the run it announces; the run bills at runAt', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-03-15T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, maxBillings: 2, amount: 2500, description: 'Gym membership' });

    await tickAt(t, secondsBefore(start, 86_401));
    await quiet();
    expect(notices(a, id)).toHaveLength(0);

    await tickAt(t, secondsBefore(start, 86_400));
    const [n] = await events(rx, a.hooks!.bank, 'billing.upcoming', 1, (e) => e.data.scheduleId === id);
    expect(n!.data).toEqual({
      scheduleId: id,
      runAt: start,
      sequence: 1,
      amount: 2500,
      currency: 'NGN',
      customerId: a.customerId,
      entityId: a.merchant.id,
      merchantName: a.merchant.name,
      description: 'Gym membership',
    });
    expect(EVENT_CATALOG['billing.upcoming'].data.safeParse(n!.data).success).toBe(true);
    // Only the bank: the merchant does not receive it.
    expect(receivedEvents(rx, a.hooks!.merchant, 'billing.upcoming').filter((e) => e.data.scheduleId === id)).toHaveLength(0);
    // Announced, not billed; the due entry waits for runAt.
    expect(await runBills(id)).toHaveLength(0);
    expect(await stored(id)).toMatchObject({ noticedOccurrence: 0, noticedRunAt: start });

    // Repeated ticks before runAt: nothing more.
    await tickAt(t, secondsBefore(start, 3600));
    await tickAt(t, secondsBefore(start, 1));
    await quiet();
    expect(notices(a, id)).toHaveLength(1);
    expect(await runBills(id)).toHaveLength(0);

    await tickAt(t, start);
    const [b1] = await runBills(id);
    expect(b1).toMatchObject({ runSeq: 1, createdAt: start, status: 'pending' });
    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.billingRequestId === b1!.billingRequestId);
    expect(req!.data.scheduleId).toBe(id);
    expect(notices(a, id)).toHaveLength(1);

    // The next period is announced 24 h before its date, with the next sequence number.
    expect((await bankResponse(t, a.bank, b1!.billingRequestId, 'approve_recurring')).status).toBe(200);
    const next = '2028-04-15T09:00:00.000Z';
    await tickAt(t, secondsBefore(next, 86_401));
    await quiet();
    expect(notices(a, id)).toHaveLength(1);
    await tickAt(t, secondsBefore(next, 86_400));
    const all = await events(rx, a.hooks!.bank, 'billing.upcoming', 2, (e) => e.data.scheduleId === id);
    expect(all.map((e) => [e.data.runAt, e.data.sequence])).toEqual([
      [start, 1],
      [next, 2],
    ]);
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  });

  it('a run sooner than the notice period is announced at once, before its billing', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-05-10T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, maxBillings: 1 });
    // The first tick that sees the schedule is already past runAt: notice, then the run, in that order.
    await tickAt(t, addDays(start, 0));
    const [b] = await runBills(id);
    expect(b).toBeDefined();
    const [n] = await events(rx, a.hooks!.bank, 'billing.upcoming', 1, (e) => e.data.scheduleId === id);
    const [req] = await events(rx, a.hooks!.bank, 'billing.request', 1, (e) => e.data.billingRequestId === b!.billingRequestId);
    expect(n!.data).toMatchObject({ runAt: start, sequence: 1 });
    expect(Date.parse(n!.createdAt)).toBeLessThanOrEqual(Date.parse(req!.createdAt));
    expect(notices(a, id)).toHaveLength(1);
  });

  it('exactly once per period: a declined run retried the next day is not announced again; a pause and resume before the date neither', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-06-12T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, maxBillings: 1 });
    await tickAt(t, secondsBefore(start, 86_400));
    await events(rx, a.hooks!.bank, 'billing.upcoming', 1, (e) => e.data.scheduleId === id);

    // Paused and resumed before the run: same period, same date, no second notice.
    expect((await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    expect((await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    expect((await stored(id)).nextBillingDate).toBe(start);
    await tickAt(t, secondsBefore(start, 60));
    await quiet();
    expect(notices(a, id)).toHaveLength(1);

    // The run is declined: the retry (same period, the next day) bills without a new notice.
    await tickAt(t, start);
    const [b1] = await runBills(id);
    expect((await bankResponse(t, a.bank, b1!.billingRequestId, 'deny', undefined, 'insufficient_funds')).status).toBe(200);
    await t.app.settle(30_000);
    const retryAt = addDays(start, 1);
    expect((await stored(id)).nextBillingDate).toBe(retryAt);
    await tickAt(t, retryAt);
    expect((await runBills(id)).map((b) => b.runSeq)).toEqual([1, 2]);
    await quiet();
    expect(notices(a, id)).toHaveLength(1);
  });

  it('a pause over the announced date, then resume: the announced run bills at its date without a second notice', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-07-03T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, frequency: 'weekly' });
    await tickAt(t, secondsBefore(start, 86_400));
    await events(rx, a.hooks!.bank, 'billing.upcoming', 1, (e) => e.data.scheduleId === id);
    // Paused over the run's date: nothing bills.
    expect((await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    // Resumed (resume counts from the real now, long before 2028): still period 0, already announced.
    expect((await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(1);
    await quiet();
    expect(notices(a, id).map((e) => e.data.runAt)).toEqual([start]);
  });
});

describe('the bank acts for its customer (DESIGN 8.5)', () => {
  it('skip: the next run is not billed, the merchant gets schedule.run_skipped (actor bank, reason), the following period is announced and billed', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-09-04T09:00:00.000Z';
    const second = '2028-10-04T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, secondsBefore(start, 86_400));
    await events(rx, a.hooks!.bank, 'billing.upcoming', 1, (e) => e.data.scheduleId === id);

    const r = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, {
      key: a.bank.apiKey,
      body: { reason: 'Customer asked to skip September' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Recurring run skipped',
      data: { scheduleId: id, skippedRunAt: start, nextBillingDate: second },
    });

    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.run_skipped', 1, (e) => e.data.scheduleId === id);
    expect(EVENT_CATALOG['schedule.run_skipped'].data.safeParse(ev!.data).success).toBe(true);
    expect(ev!.data).toMatchObject({
      scheduleId: id,
      actor: 'bank',
      reason: 'Customer asked to skip September',
      skippedRunAt: start,
      skippedSequence: 1,
      nextBillingDate: second,
      status: 'active',
      totalBillings: 0,
    });
    await events(rx, a.hooks!.provider!, 'schedule.run_skipped', 1, (e) => e.data.scheduleId === id);

    // The skipped date bills nothing.
    await tickAt(t, start);
    await tickAt(t, addDays(start, 1));
    expect(await runBills(id)).toHaveLength(0);
    const got = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(got.body.data).toMatchObject({ status: 'active', nextBillingDate: second, totalBillings: 0 });

    // The next period: its own notice, then its run with sequence 1 (the skipped run billed nothing).
    await tickAt(t, secondsBefore(second, 86_400));
    const ns = await events(rx, a.hooks!.bank, 'billing.upcoming', 2, (e) => e.data.scheduleId === id);
    expect(ns.map((e) => e.data.runAt)).toEqual([start, second]);
    await tickAt(t, second);
    const [b] = await runBills(id);
    expect(b).toMatchObject({ createdAt: second, runSeq: 1 });
  });

  it('skip the last period before endDate: the schedule completes (run_skipped by the bank, completed by the system)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2028-11-06T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, frequency: 'weekly', endDate: addDays(start, 3) });
    const r = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, { key: a.bank.apiKey, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ scheduleId: id, skippedRunAt: start, nextBillingDate: null });
    const [skipped] = await events(rx, a.hooks!.merchant, 'schedule.run_skipped', 1, (e) => e.data.scheduleId === id);
    expect(skipped!.data.actor).toBe('bank');
    expect(skipped!.data.reason).toBeUndefined();
    const [done] = await events(rx, a.hooks!.merchant, 'schedule.completed', 1, (e) => e.data.scheduleId === id);
    expect(done!.data).toMatchObject({ actor: 'system', reason: 'end_date', status: 'completed' });
    // Nothing left to skip.
    const again = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, { key: a.bank.apiKey, body: {} });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, message: 'Recurring schedule is not active' });
  });

  it('skip while the run is at the bank: 409 (answer the billing instead); a paused schedule: 409', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-01-08T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(1);
    const inFlight = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, { key: a.bank.apiKey, body: {} });
    expect(inFlight.status).toBe(409);
    expect(inFlight.body).toMatchObject({ success: false, message: 'A run of this recurring schedule is already in progress' });

    const b = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: {} });
    expect(b.status).toBe(200);
    const [bill] = await runBills(id);
    expect((await bankResponse(t, a.bank, bill!.billingRequestId, 'approve_recurring')).status).toBe(200);
    await t.app.settle(30_000);
    const paused = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, { key: a.bank.apiKey, body: {} });
    expect(paused.status).toBe(409);
    expect(paused.body.message).toBe('Recurring schedule is not active');
  });

  it('cancel: cancelled at once, schedule.cancelled to the merchant with actor bank and the reason; again -> the first cancellation; no run after', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-03-05T09:00:00.000Z';
    const id = await schedule(a, { startDate: start });
    const r = await t.call('POST', `/v1/bank/subscriptions/${id}/cancel`, {
      key: a.bank.apiKey,
      body: { reason: 'Customer revoked the mandate in the app' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      success: true,
      message: 'Recurring schedule cancelled',
      data: { scheduleId: id, status: 'cancelled', cancelledAt: expect.any(String) },
    });
    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.cancelled', 1, (e) => e.data.scheduleId === id);
    expect(ev!.data).toMatchObject({
      actor: 'bank',
      reason: 'Customer revoked the mandate in the app',
      status: 'cancelled',
      cancelledAt: r.body.data.cancelledAt,
      nextBillingDate: null,
    });

    const again = await t.call('POST', `/v1/bank/subscriptions/${id}/cancel`, { key: a.bank.apiKey, body: {} });
    expect(again.status).toBe(200);
    expect(again.body.data.cancelledAt).toBe(r.body.data.cancelledAt);
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    await quiet();
    expect(receivedEvents(rx, a.hooks!.merchant, 'schedule.cancelled').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
    expect(notices(a, id)).toHaveLength(0);
    const got = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(got.body.data).toMatchObject({ status: 'cancelled', cancelledAt: r.body.data.cancelledAt });
  });

  it("another bank's schedule: 404 `Recurring schedule not found` for skip and cancel, and nothing changes; a merchant key: 403", async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await schedule(a, { startDate: '2029-05-07T09:00:00.000Z' });
    const other = await t.participant('bank');
    const before = await stored(id);
    for (const action of ['skip', 'cancel']) {
      const r = await t.call('POST', `/v1/bank/subscriptions/${id}/${action}`, { key: other.apiKey, body: { reason: 'not mine' } });
      expect(r.status, action).toBe(404);
      expect(r.body).toMatchObject({ success: false, statusCode: 404, message: 'Recurring schedule not found' });
      const unknown = await t.call('POST', `/v1/bank/subscriptions/sch_doesnotexist00/${action}`, { key: a.bank.apiKey, body: {} });
      expect(unknown.status, action).toBe(404);
      const merchant = await t.call('POST', `/v1/bank/subscriptions/${id}/${action}`, { key: a.merchant.apiKey, body: {} });
      expect(merchant.status, action).toBe(403);
    }
    expect(await stored(id)).toEqual(before);
  });

  it('a bad body is 400 and changes nothing', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await schedule(a, { startDate: '2029-06-04T09:00:00.000Z' });
    const before = await stored(id);
    for (const body of [{ reason: 5 }, { reason: 'x'.repeat(501) }, { unknown: true }]) {
      const r = await t.call('POST', `/v1/bank/subscriptions/${id}/skip`, { key: a.bank.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, message: 'Invalid request parameters' });
    }
    expect(await stored(id)).toEqual(before);
  });
});

describe('actor on every schedule.* event (DESIGN 8.5)', () => {
  it('created, paused and resumed by the merchant; run_failed, paused and completed by the system', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-08-06T09:00:00.000Z';
    const id = await schedule(a, { startDate: start, amount: 20, frequency: 'weekly', maxBillings: 1 });
    const [created] = await events(rx, a.hooks!.merchant, 'schedule.created', 1, (e) => e.data.scheduleId === id);
    expect(created!.data.actor).toBe('merchant');
    expect((await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { reason: 'holiday' } })).status).toBe(200);
    expect((await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    const [paused] = await events(rx, a.hooks!.merchant, 'schedule.paused', 1, (e) => e.data.scheduleId === id);
    const [resumed] = await events(rx, a.hooks!.merchant, 'schedule.resumed', 1, (e) => e.data.scheduleId === id);
    expect(paused!.data).toMatchObject({ actor: 'merchant', reason: 'holiday', pausedBy: 'merchant' });
    expect(resumed!.data.actor).toBe('merchant');

    // The bank lowers the customer's single limit under the amount: the run is refused by the service.
    const lower = await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, {
      key: a.bank.apiKey,
      body: { customerDecision: 'approve_recurring', spendingLimits: { single: 10 } },
    });
    expect(lower.status).toBe(200);
    await tickAt(t, start);
    const [failed] = await events(rx, a.hooks!.merchant, 'schedule.run_failed', 1, (e) => e.data.scheduleId === id);
    expect(failed!.data).toMatchObject({ actor: 'system', reason: 'spending_limit_exceeded' });

    // The bank blocks the merchant: the next run pauses the schedule (system).
    const put = await t.call('PUT', `/v1/bank/customer-decisions/${a.decisionId}`, {
      key: a.bank.apiKey,
      body: { customerDecision: 'deny' },
    });
    expect(put.status).toBe(200);
    await tickAt(t, addDays(start, 1));
    const servicePaused = await events(rx, a.hooks!.merchant, 'schedule.paused', 2, (e) => e.data.scheduleId === id);
    expect(servicePaused[1]!.data).toMatchObject({ actor: 'system', pausedBy: 'service', reason: 'permission_revoked' });
  });
});
