/**
 * A clocked advance never outruns a bank (DESIGN 9.2): the example of 8.7 (a monthly schedule
 * from 2027-01-31, maxBillings 3, advanced to 2027-04-01) with a REAL bank, a webhook receiver
 * in this test that answers each `billing.request` with `POST /v1/billing/bank-response` after
 * a random 0-300 ms delay (real time). Twenty times in a row, each sees exactly three billing
 * requests, on Jan 31, Feb 28 and Mar 31, every answer accepted, and `schedule.completed`. The
 * advance waits for each answer (TEST_CLOCK_BANK_WAIT_SECONDS: 3 s here, 10 by default) before
 * the clock passes its deadline. Before 9.2 the clock ran past the answers: 6-9 billing requests, runs
 * failed as `bank_no_answer`, and the schedule did not complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../local/receiver';
import { startTestApp, type TestApp } from '../support/app';
import { events, receivedEvents, webhook, type Hook, type Party, type WebhookEvent } from '../support/flows';
import { recurringAgreement, runBills, stored } from '../support/recurring-fixtures';
import { advance, clockedSchedule, JAN_31_EXAMPLE, newClock, type ClockWorld } from '../support/test-clocks';

const RUNS = 20;
/** The bank's answer comes 0-300 ms after its billing.request, in real time. */
const MAX_ANSWER_DELAY_MS = 300;
/** How long an advance waits for a bank's answer here (default 10 s): well above the bank's delay, short for the silent bank. */
const BANK_WAIT_SECONDS = 3;

let t: TestApp;
let rx: Receiver;
let bank: Party;
let bankHook: Hook;
/** The bank's answers: status of each `POST /v1/billing/bank-response`, by billingRequestId. */
const answers = new Map<string, number>();
const inFlight = new Set<Promise<void>>();

beforeAll(async () => {
  t = await startTestApp({ TEST_CLOCK_BANK_WAIT_SECONDS: String(BANK_WAIT_SECONDS) });
  rx = await startReceiver();
  bank = await t.participant('bank');
  bankHook = await webhook(t, rx, bank, { label: 'bank' });
  // The bank: each billing.request is approved after a random 0-2 s, in real time.
  rx.respond(bankHook.path, (req) => {
    const e = JSON.parse(req.body) as WebhookEvent;
    if (e.type === 'billing.request' && !answers.has(e.data.billingRequestId)) {
      answers.set(e.data.billingRequestId, 0);
      const answer = (async () => {
        await new Promise((ok) => setTimeout(ok, Math.random() * MAX_ANSWER_DELAY_MS));
        const r = await t.call('POST', '/v1/billing/bank-response', {
          key: bank.apiKey,
          body: { billingRequestId: e.data.billingRequestId, action: 'approve_recurring', bankTransactionId: `BTX-${e.id}` },
        });
        answers.set(e.data.billingRequestId, r.status);
      })();
      inFlight.add(answer);
      void answer.finally(() => inFlight.delete(answer));
    }
    return { status: 200 };
  });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([...inFlight]);
  await rx?.close();
  await t?.stop();
});

describe('a clocked advance waits for a real bank (DESIGN 9.2)', () => {
  it(`the Jan 31 example, ${RUNS} times in a row: exactly three billing requests on Jan 31, Feb 28 and Mar 31, each answered, then schedule.completed`, async () => {
    const durations: number[] = [];
    // One agreement; each run a clock and a schedule of its own.
    const a = await recurringAgreement(t, { bank });
    const hook = await webhook(t, rx, a.merchant, { label: 'merchant' });
    const w: ClockWorld = { t, merchant: a.merchant, hook, agreementPhrase: a.agreementPhrase, customerId: a.customerId };
    for (let run = 1; run <= RUNS; run++) {
      const started = Date.now();
      const clockId = await newClock(w, '2027-01-01T00:00:00.000Z');
      const id = await clockedSchedule(w, clockId, JAN_31_EXAMPLE);

      await advance(w, clockId, '2027-04-01T00:00:00.000Z');
      // The last answer's billing is settled before its HTTP answer reaches the bank: let it arrive.
      await Promise.all([...inFlight]);

      const requests = receivedEvents(rx, bankHook, 'billing.request').filter((e) => e.data.scheduleId === id);
      expect(requests.map((e) => e.createdAt).sort(), `run ${run}`).toEqual([
        '2027-01-31T09:00:00.000Z',
        '2027-02-28T09:00:00.000Z',
        '2027-03-31T09:00:00.000Z',
      ]);
      expect(
        requests.map((e) => answers.get(e.data.billingRequestId)),
        `run ${run}: the bank's answers were accepted`,
      ).toEqual([200, 200, 200]);
      const [done] = await events(rx, hook, 'schedule.completed', 1, (e) => e.data.scheduleId === id);
      expect(done!.data).toMatchObject({ testClock: clockId, reason: 'max_billings' });
      expect(await stored(id)).toMatchObject({ status: 'completed', totalBillings: 3, failedAttempts: 0 });
      durations.push(Date.now() - started);
    }
    const total = durations.reduce((s, d) => s + d, 0);
    console.log(
      `test clock 8.7 example with a real bank: ${RUNS} runs in ${Math.round(total / 1000)} s (each ${durations.map((d) => (d / 1000).toFixed(1)).join(', ')} s)`,
    );
  }, 1_800_000);

  it('a bank that never answers holds the advance back once, for TEST_CLOCK_BANK_WAIT_SECONDS, then its deadlines pass as before (bank_no_answer)', async () => {
    const silent = await t.participant('bank');
    await webhook(t, rx, silent, { label: 'silent-bank' }); // receives billing.request, never answers
    const a = await recurringAgreement(t, { bank: silent });
    const hook = await webhook(t, rx, a.merchant, { label: 'merchant-silent' });
    const w: ClockWorld = { t, merchant: a.merchant, hook, agreementPhrase: a.agreementPhrase, customerId: a.customerId };
    const clockId = await newClock(w, '2027-01-01T00:00:00.000Z');
    const id = await clockedSchedule(w, clockId, { ...JAN_31_EXAMPLE, maxBillings: 1 });
    const started = Date.now();
    await advance(w, clockId, '2027-02-10T00:00:00.000Z');
    const took = Date.now() - started;
    expect(took, 'the advance waited for the bank').toBeGreaterThanOrEqual(BANK_WAIT_SECONDS * 1000);
    // The first run and its three retries (the default policy), each failed at its deadline.
    const bills = await runBills(id);
    expect(bills.map((b) => [b.status, b.reason])).toEqual(Array(4).fill(['failed', 'bank_no_answer']));
    expect(await stored(id)).toMatchObject({ totalBillings: 0, failedAttempts: 4 });
    console.log(`test clock with a bank that never answers: advanced in ${(took / 1000).toFixed(1)} s`);
  }, 300_000);
});
