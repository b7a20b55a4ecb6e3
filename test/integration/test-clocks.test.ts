/**
 * Sandbox test clocks (DESIGN 8.7, 9.2): create/read/advance/delete; a merchant request
 * with X-Test-Clock ties what it creates to the clock; advancing runs what falls due through
 * the normal workers in due order, in bounded steps (`advancing` until done), with the
 * simulated bank answering each run; events carry testClock. Deleting a clock, also while it
 * advances, stops everything it owns. Real local stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { advance, clockCall, clockedSchedule, clockWorld, JAN_31_EXAMPLE, newClock } from '../support/test-clocks';
import { agreement, bankResponse, bill, events, lookupPhraseFor, pay, type Hook, type Party } from '../support/flows';
import { magicEmail, startSandboxWorld, stopSandboxWorld } from '../support/sandbox-world';
import type { Receiver } from '../../local/receiver';
import { getBill, ledgerProblems, scanPrefix } from '../support/billing-table';
import { sleep } from '../../functions/platform/retry';
import { until } from '../support/money-fixtures';
import { idTimeMs } from '../../functions/domain/ids';
import { runBills, stored } from '../support/recurring-fixtures';

let t: TestApp;
let rx: Receiver;
let sim: Party;
let simHook: Hook;

beforeAll(async () => {
  ({ t, rx, sim, simHook } = await startSandboxWorld());
});
afterAll(() => stopSandboxWorld({ t, rx }));

describe('test clocks (DESIGN 8.7)', () => {
  it('create, read, advance rules, delete; another merchant gets 404; X-Test-Clock of another merchant is 404', async () => {
    const w = await clockWorld(t, rx, sim);
    const other = await clockWorld(t, rx, sim);
    const id = await newClock(w, '2027-01-01T00:00:00+01:00');
    const got = await clockCall(w, 'GET', `/${id}`);
    expect(got.body).toMatchObject({
      statusCode: 200,
      data: { clockId: id, frozenTime: '2026-12-31T23:00:00.000Z', status: 'ready', name: 'Monthly plan test' },
    });
    expect((await clockCall(other, 'GET', `/${id}`)).status).toBe(404);
    for (const [body, why] of [
      [{ frozenTime: '2026-12-31T23:00:00.000Z' }, 'not forward'],
      [{ frozenTime: '2026-01-01T00:00:00.000Z' }, 'backwards'],
      [{ frozenTime: '2029-01-01T00:00:00.000Z' }, 'more than 2 years'],
      [{ frozenTime: 'soon' }, 'not a time'],
      [{}, 'missing'],
    ] as const) {
      const r = await clockCall(w, 'POST', `/${id}/advance`, body);
      expect(r.status, why).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    const foreign = await t.call('POST', '/v1/billing/recurring/create', {
      key: other.merchant.apiKey,
      headers: { 'x-test-clock': id },
      body: {
        customerId: other.customerId,
        agreementPhrase: other.agreementPhrase,
        amount: 10,
        currency: 'NGN',
        frequency: 'monthly',
        startDate: '2027-01-31T09:00:00.000Z',
      },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Test clock not found');
    expect((await clockCall(w, 'DELETE', `/${id}`)).status).toBe(200);
    expect((await clockCall(w, 'GET', `/${id}`)).status).toBe(404);
  });

  it("a schedule's endDate must be in the future of the clock's time, not of real time", async () => {
    const w = await clockWorld(t, rx, sim);
    // A clock in the past: an endDate gone in real time is still ahead of the clock.
    const past = await newClock(w, '2021-01-01T00:00:00.000Z');
    const body = { amount: 10, frequency: 'monthly', startDate: '2021-01-05T09:00:00.000Z', endDate: '2021-06-01T09:00:00.000Z' };
    expect(await stored(await clockedSchedule(w, past, body))).toMatchObject({ endDate: body.endDate });
    // A clock ahead of real time: an endDate still to come in real time has passed for the clock.
    const ahead = await newClock(w, '2031-01-01T00:00:00.000Z');
    const r = await t.call('POST', '/v1/billing/recurring/create', {
      key: w.merchant.apiKey,
      headers: { 'x-test-clock': ahead },
      body: {
        customerId: w.customerId,
        agreementPhrase: w.agreementPhrase,
        currency: 'NGN',
        amount: 10,
        frequency: 'monthly',
        startDate: '2030-01-05T09:00:00.000Z',
        endDate: '2030-06-01T09:00:00.000Z',
      },
    });
    expect([r.status, r.body.message, r.body.errors]).toEqual([
      400,
      'Invalid request parameters',
      [{ path: 'endDate', message: 'must be in the future' }],
    ]);
  });

  it('the Jan 31 example: a monthly schedule from 2027-01-31 with maxBillings 3, advanced to 2027-04-01, bills on Jan 31, Feb 28, Mar 31, then completes', async () => {
    const w = await clockWorld(t, rx, sim);
    const clockId = await newClock(w, '2027-01-01T00:00:00.000Z');
    const id = await clockedSchedule(w, clockId, JAN_31_EXAMPLE);
    // Real time does not run it: the real tick far in the future finds nothing of the clock.
    await t.app.tick(new Date('2027-06-01T00:00:00.000Z'));
    await t.app.settle();
    expect(await runBills(id)).toHaveLength(0);

    await advance(w, clockId, '2027-04-01T00:00:00.000Z');
    const bills = (await runBills(id)).sort((a, b) => a.runSeq! - b.runSeq!);
    expect(bills.map((b) => b.createdAt)).toEqual(['2027-01-31T09:00:00.000Z', '2027-02-28T09:00:00.000Z', '2027-03-31T09:00:00.000Z']);
    for (const b of bills) expect((await getBill(b.billingRequestId))!.status).toBe('succeeded');
    expect(await stored(id)).toMatchObject({ status: 'completed', totalBillings: 3, completionReason: 'max_billings' });
    const [done] = await events(rx, w.hook, 'schedule.completed', 1, (e) => e.data.scheduleId === id);
    expect(done!.data).toMatchObject({ testClock: clockId, reason: 'max_billings' });
    expect(done!.createdAt).toBe('2027-03-31T09:00:01.000Z');
    // The pre-debit notice followed the clock: 24 h before the run, in clock time.
    const [notice] = await events(
      rx,
      simHook,
      'billing.upcoming',
      1,
      (e) => e.data.scheduleId === id && e.data.runAt === '2027-02-28T09:00:00.000Z',
    );
    expect(notice!.createdAt).toBe('2027-02-27T09:00:00.000Z');
    expect(notice!.data.testClock).toBe(clockId);
    const [paid] = await events(rx, w.hook, 'billing.response', 1, (e) => e.data.billingRequestId === bills[0]!.billingRequestId);
    expect(paid!.data).toMatchObject({ status: 'succeeded', testClock: clockId, scheduleId: id });
    expect(await ledgerProblems(w.merchant.id)).toEqual([]);
  }, 120_000);

  it('an approval window follows the clock: a one-time pay on the clock expires when the clock passes expiresAt, not in real time', async () => {
    const w = await clockWorld(t, rx, sim);
    const clockId = await newClock(w, '2028-05-10T10:00:00.000Z');
    const phrase = await lookupPhraseFor(t, w.merchant, magicEmail('debit.no.answer'), sim.id);
    const pay = await t.call('POST', '/v1/customer/pay', {
      key: w.merchant.apiKey,
      headers: { 'x-test-clock': clockId },
      body: { lookupPhrases: [phrase], amount: 25, currency: 'NGN', description: 'Clocked one-time' },
    });
    expect(pay.status, JSON.stringify(pay.body)).toBe(201);
    const el = pay.body[0];
    expect(el.expiresAt).toBe('2028-05-10T10:00:30.000Z'); // APPROVAL_WINDOW_SECONDS 30 from the clock's time
    await t.app.tick(new Date('2029-01-01T00:00:00.000Z'));
    await t.app.settle();
    expect((await getBill(el.billingRequestId))!.status).toBe('pending');
    await advance(w, clockId, '2028-05-10T10:01:00.000Z');
    expect((await getBill(el.billingRequestId))!.status).toBe('expired');
    const [res] = await events(rx, w.hook, 'billing.response', 1, (e) => e.data.billingRequestId === el.billingRequestId);
    expect(res!.data).toMatchObject({ status: 'expired', testClock: clockId });
    expect(res!.createdAt).toBe('2028-05-10T10:00:30.000Z');
  }, 120_000);

  it('DELETE while advancing stops the advance: totalBillings stands still, the schedule ends cancelled (actor system, reason test_clock_deleted), the run helper is 409, and nothing of the clock bills, notifies or settles after the 200', async () => {
    const w = await clockWorld(t, rx, sim);
    const clockId = await newClock(w, '2027-01-01T00:00:00.000Z');
    const id = await clockedSchedule(w, clockId, { amount: 10, frequency: 'daily', startDate: '2027-01-01T08:00:00.000Z' });
    const adv = await clockCall(w, 'POST', `/${clockId}/advance`, { frozenTime: '2028-01-01T00:00:00.000Z' });
    expect(adv.status).toBe(202);
    // The steps run in the background, driven by real ticks, as under npm start.
    let driving = true;
    const driver = (async () => {
      while (driving) {
        await t.app.tick(new Date());
        await sleep(250);
      }
    })();
    try {
      await until(async () => (await stored(id)).totalBillings >= 3, 120_000);
      expect((await clockCall(w, 'GET', `/${clockId}`)).body.data.status).toBe('advancing');
      const del = await clockCall(w, 'DELETE', `/${clockId}`);
      expect(del.status, JSON.stringify(del.body)).toBe(200);
      const answeredAt = Date.now();
      expect(del.body).toMatchObject({ message: 'Test clock deleted', data: { clockId, deleted: true } });
      const atDelete = await stored(id);
      const billsAtDelete = (await runBills(id)).map((b) => b.billingRequestId).sort();
      // An event a transaction carried (events/outbox.ts: in its first event's item, or on the
      // item that caused it) gets its own item from the stream after that commit: the events of
      // the clock at the 200 are read once the stream is read past it. None was made after it
      // (an event's id starts with the time it was made).
      const stream = t.app.eventStream!;
      await until(async () => {
        stream.wake();
        return stream.caughtUpSince(answeredAt);
      }, 120_000);
      const eventsAtDelete = await clockEventIds(clockId);
      expect(eventsAtDelete.filter((e) => idTimeMs(e) > answeredAt)).toEqual([]);

      // A step of the advance that was running at the DELETE ends first (settle waits for the
      // jobs worker); then ticks find nothing of the clock to run.
      driving = false;
      await driver;
      for (let i = 0; i < 5; i++) {
        await t.app.tick(new Date());
        await t.app.settle();
      }
      const later = await stored(id);
      expect(later.totalBillings).toBe(atDelete.totalBillings);
      expect(later.failedAttempts).toBe(atDelete.failedAttempts);
      expect(later.status).toBe('cancelled');
      expect((await runBills(id)).map((b) => b.billingRequestId).sort()).toEqual(billsAtDelete);
      expect(await clockEventIds(clockId)).toEqual(eventsAtDelete);
      expect(atDelete).toMatchObject({ status: 'cancelled', cancelledBy: 'system', cancelReason: 'test_clock_deleted' });
    } finally {
      driving = false;
      await driver;
    }
    const [cancelled] = await events(rx, w.hook, 'schedule.cancelled', 1, (e) => e.data.scheduleId === id);
    expect(cancelled!.data).toMatchObject({ actor: 'system', reason: 'test_clock_deleted', testClock: clockId });
    const run = await t.call('POST', `/v1/sandbox/recurring/${id}/run`, { key: w.merchant.apiKey, body: {} });
    expect(run.status).toBe(409);
    expect(run.body.message).toBe('Recurring schedule is not active');
    for (const [method, path, body] of [
      ['GET', `/${clockId}`, undefined],
      ['POST', `/${clockId}/advance`, { frozenTime: '2028-06-01T00:00:00.000Z' }],
      ['DELETE', `/${clockId}`, undefined],
    ] as const) {
      const r = await clockCall(w, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.message).toBe('Test clock not found');
    }
    expect(await ledgerProblems(w.merchant.id)).toEqual([]);
  }, 300_000);

  it("deleting a clock fails its billings still awaiting a bank; a bank's later answer is 409 and moves no money", async () => {
    const a = await agreement(t, { decision: 'approve_recurring', trustLevel: 'premium', receiver: rx });
    const w = { t, merchant: a.merchant, hook: a.hooks!.merchant, agreementPhrase: a.agreementPhrase, customerId: a.customerId };
    const clockId = await newClock(w, '2027-05-10T10:00:00.000Z');
    const clocked = { 'x-test-clock': clockId };
    // An approval on the clock (its expiry is a due entry of the clock) and a billing with no deadline.
    const payEl = (await pay(t, a.merchant, [a.lookupPhrase], 40, { headers: clocked })).body[0];
    const billEl = (await bill(t, a.merchant, [a.agreementPhrase], 25, { headers: clocked })).body[0];
    expect([payEl.statusCode, billEl.statusCode]).toEqual([201, 201]);
    expect((await clockCall(w, 'DELETE', `/${clockId}`)).status).toBe(200);
    expect(await getBill(payEl.billingRequestId)).toMatchObject({ status: 'failed', reason: 'test_clock_deleted' });
    const [failed] = await events(rx, w.hook, 'billing.response', 1, (e) => e.data.billingRequestId === payEl.billingRequestId);
    expect(failed!.data).toMatchObject({ status: 'failed', reason: 'test_clock_deleted', testClock: clockId });
    for (const el of [payEl, billEl]) {
      const r = await bankResponse(t, a.bank, el.billingRequestId, 'approve_once');
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.message).toBe('Billing request was cancelled: its test clock was deleted');
      expect(await getBill(el.billingRequestId)).toMatchObject({ status: 'failed', reason: 'test_clock_deleted' });
    }
    const balance = await t.call('GET', '/v1/balance/details', { key: a.merchant.apiKey });
    expect(balance.body.data).toMatchObject({ unsettledBalance: 0, settledBalance: 0 });
    expect(await ledgerProblems(a.merchant.id)).toEqual([]);
  }, 120_000);
});

/** Ids of the events made on clock `clockId` (from the table: what was committed, delivered or not). */
async function clockEventIds(clockId: string): Promise<string[]> {
  const items = await scanPrefix<{ id: string; data?: { testClock?: string } }>('EVT#');
  return items
    .filter((e) => e.data?.testClock === clockId)
    .map((e) => e.id)
    .sort();
}
