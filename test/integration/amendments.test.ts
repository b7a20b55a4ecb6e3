/**
 * Amendments (DESIGN 8.6): PATCH /v1/recurring/{id} asks the customer's bank for a
 * fresh decision (`billing.intent` with `amendment`); the old terms hold until the bank
 * approves (`schedule.amended`, from the next run; a run in between bills the old amount) and
 * after a refusal (`schedule.amendment_declined`); a new frequency re-anchors the dates at the
 * next run. Real local stack; time driven with the tick.
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { bankResponse, events, type Agreement } from '../support/flows';
import { diffSnapshots, snapshotTable } from '../support/fuzz';
import type { Receiver } from '../../local/receiver';
import { newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const amend = (a: Agreement, id: string, body: unknown) => t.call('PATCH', `/v1/recurring/${id}`, { key: a.merchant.apiKey, body });

/** The bank's billing.intent of the amendment. */
async function amendmentIntent(a: Agreement, amendmentId: string) {
  const [ev] = await events(rx, a.hooks!.bank, 'billing.intent', 1, (e) => e.data.amendment?.amendmentId === amendmentId);
  return ev!.data;
}

/** The bank answers the intent with a fresh decision. */
function answer(a: Agreement, intentId: string, customerDecision: string, spendingLimits: Record<string, number> = {}) {
  return t.call('POST', '/v1/billing/intent-response', {
    key: a.bank.apiKey,
    body: { customerId: a.customerId, entityId: a.merchant.id, lookupPhrase: a.lookupPhrase, customerDecision, spendingLimits, intentId },
  });
}

async function runAndApprove(a: Agreement, id: string, at: string, seq: number) {
  await tickAt(t, at);
  const b = (await runBills(id)).find((x) => x.runSeq === seq);
  expect(b, `run ${seq} at ${at}`).toBeDefined();
  expect((await bankResponse(t, a.bank, b!.billingRequestId, 'approve_recurring')).status).toBe(200);
  return b!;
}

describe('PATCH /v1/recurring/{id} (DESIGN 8.6)', () => {
  it('approved: the bank gets the amendment; a run before the approval bills the old amount; after it, the new one from the next run', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-03-05T09:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start, amount: 5000, description: 'Gym, standard' });

    const r = await amend(a, id, { amount: 7500, description: 'Gym, premium' });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({
      statusCode: 202,
      success: true,
      data: { scheduleId: id, amendmentId: expect.stringMatching(/^amd_/), status: 'pending' },
    });
    const amendmentId = r.body.data.amendmentId;
    const intent = await amendmentIntent(a, amendmentId);
    expect(intent).toMatchObject({
      customerId: a.customerId,
      entityId: a.merchant.id,
      lookupPhrase: a.lookupPhrase,
      description: 'Gym, premium',
      amendment: {
        scheduleId: id,
        amendmentId,
        from: { amount: 5000, frequency: 'monthly', description: 'Gym, standard' },
        to: { amount: 7500, frequency: 'monthly', description: 'Gym, premium' },
      },
    });
    const pending = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(pending.body.data).toMatchObject({
      amount: 5000,
      description: 'Gym, standard',
      pendingAmendment: { amendmentId, to: { amount: 7500 } },
    });
    // One pending at a time.
    const again = await amend(a, id, { amount: 9000 });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('Recurring schedule already has a pending amendment');

    // A run between the request and the approval bills the old terms.
    const first = await runAndApprove(a, id, start, 1);
    expect(first.amount).toBe(500_000);

    expect((await answer(a, intent.intentId, 'approve_recurring', { single: 10_000 })).status).toBe(200);
    const [amended] = await events(rx, a.hooks!.merchant, 'schedule.amended', 1, (e) => e.data.scheduleId === id);
    expect(amended!.data).toMatchObject({
      actor: 'bank',
      amendmentId,
      amount: 7500,
      from: { amount: 5000 },
      to: { amount: 7500, description: 'Gym, premium' },
      effectiveFrom: '2029-04-05T09:00:00.000Z',
    });
    const after = await t.call('GET', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
    expect(after.body.data).toMatchObject({
      amount: 7500,
      description: 'Gym, premium',
      frequency: 'monthly',
      nextBillingDate: '2029-04-05T09:00:00.000Z',
    });
    expect(after.body.data.pendingAmendment).toBeUndefined();

    const second = await runAndApprove(a, id, '2029-04-05T09:00:00.000Z', 2);
    expect(second.amount).toBe(750_000);
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('declined: limits below the new amount keep the old terms (reason limits); a deny too (customer_declined)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-05-07T09:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start, amount: 1000 });
    const r = await amend(a, id, { amount: 3000 });
    expect(r.status).toBe(202);
    const intent = await amendmentIntent(a, r.body.data.amendmentId);
    expect((await answer(a, intent.intentId, 'approve_recurring', { monthly: 2000 })).status).toBe(200);
    const [declined] = await events(rx, a.hooks!.merchant, 'schedule.amendment_declined', 1, (e) => e.data.scheduleId === id);
    expect(declined!.data).toMatchObject({
      actor: 'bank',
      amendmentId: r.body.data.amendmentId,
      reason: 'limits',
      amount: 1000,
      to: { amount: 3000 },
    });
    expect(await stored(id)).toMatchObject({ amount: 100_000 });
    expect((await stored(id)).pendingAmendment).toBeUndefined();
    // The old terms still bill.
    const b = await runAndApprove(a, id, start, 1);
    expect(b.amount).toBe(100_000);

    // A new request is possible again; a deny declines it (and the decision is deny: runs then stop).
    const r2 = await amend(a, id, { frequency: 'weekly' });
    expect(r2.status).toBe(202);
    const intent2 = await amendmentIntent(a, r2.body.data.amendmentId);
    expect((await answer(a, intent2.intentId, 'deny')).status).toBe(200);
    const [declined2] = await events(
      rx,
      a.hooks!.merchant,
      'schedule.amendment_declined',
      1,
      (e) => e.data.amendmentId === r2.body.data.amendmentId,
    );
    expect(declined2!.data).toMatchObject({ reason: 'customer_declined', frequency: 'monthly' });
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('a new frequency re-anchors at the next run: monthly -> weekly', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-06-04T09:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start, amount: 100 });
    await runAndApprove(a, id, start, 1);
    expect((await stored(id)).nextBillingDate).toBe('2029-07-04T09:00:00.000Z');
    const r = await amend(a, id, { frequency: 'weekly' });
    const intent = await amendmentIntent(a, r.body.data.amendmentId);
    expect((await answer(a, intent.intentId, 'approve_recurring')).status).toBe(200);
    await events(rx, a.hooks!.merchant, 'schedule.amended', 1, (e) => e.data.scheduleId === id);
    // The next run keeps its date; the ones after follow the new frequency.
    expect(await stored(id)).toMatchObject({ frequency: 'weekly', nextBillingDate: '2029-07-04T09:00:00.000Z' });
    await runAndApprove(a, id, '2029-07-04T09:00:00.000Z', 2);
    expect((await stored(id)).nextBillingDate).toBe('2029-07-11T09:00:00.000Z');
    await runAndApprove(a, id, '2029-07-11T09:00:00.000Z', 3);
    expect((await stored(id)).nextBillingDate).toBe('2029-07-18T09:00:00.000Z');
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('bad requests write nothing: 400 for bad or empty bodies and no change, 404 another merchant, 409 cancelled', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await newSchedule(t, a, { startDate: '2029-08-06T09:00:00.000Z', amount: 100, description: 'Plan' });
    const other = await t.participant('merchant');
    await t.app.settle();
    const before = await snapshotTable();
    for (const body of [
      {},
      { amount: -1 },
      { amount: 0 },
      { amount: 1.005 },
      { frequency: 'hourly' },
      { description: '' },
      { amount: 5, currency: 'USD' },
      { amount: 100 },
      { amount: 100, description: 'Plan' },
    ]) {
      const r = await amend(a, id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    const foreign = await t.call('PATCH', `/v1/recurring/${id}`, { key: other.apiKey, body: { amount: 5 } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Recurring schedule not found');
    await t.app.settle();
    expect(diffSnapshots(before, await snapshotTable())).toEqual([]);

    expect((await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey })).status).toBe(200);
    const cancelled = await amend(a, id, { amount: 5 });
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.message).toBe('Recurring schedule is not active');
  });
});
