/**
 * Dunning (DESIGN 8.6): the merchant's retry policy for failed recurring runs.
 * GET/PUT /v1/merchant/retry-policy (validation, isolation, a repeatable PUT, audit); the policy
 * drives the retries of a run the bank declines (`declineReason`), each on a Lagos business
 * day, announced on `billing.response` as willRetry / nextRetryAt (false on the last attempt);
 * the customer's refusal is never retried. Real local stack; time driven with the tick.
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { bankResponse, events } from '../support/flows';
import { diffSnapshots, snapshotTable } from '../support/fuzz';
import type { Receiver } from '../../local/receiver';
import { newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const PATH = '/v1/merchant/retry-policy';

describe('GET/PUT /v1/merchant/retry-policy', () => {
  it('the default is [1, 1, 1]; a PUT sets it (audited); the GET reads it back', async () => {
    const m = await t.participant('merchant');
    const d = await t.call('GET', PATH, { key: m.apiKey });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ statusCode: 200, success: true, data: { retryAfterDays: [1, 1, 1], isDefault: true } });

    const put = await t.call('PUT', PATH, { key: m.apiKey, body: { retryAfterDays: [1, 3, 3, 7, 30] } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ message: 'Retry policy updated', data: { retryAfterDays: [1, 3, 3, 7, 30], isDefault: false } });
    expect((await t.call('GET', PATH, { key: m.apiKey })).body.data).toEqual({ retryAfterDays: [1, 3, 3, 7, 30], isDefault: false });

    const audit = await t.call('GET', '/v1/audit-log', { key: m.apiKey, query: { limit: '100' } });
    expect(audit.status).toBe(200);
    expect(audit.body.data.entries.map((e: { action: string }) => e.action)).toContain('merchant.retry_policy_updated');
  });

  it('bad bodies are 400 Invalid request parameters and write nothing', async () => {
    const m = await t.participant('merchant');
    expect((await t.call('PUT', PATH, { key: m.apiKey, body: { retryAfterDays: [2] } })).status).toBe(200);
    const before = await snapshotTable();
    const bodies: unknown[] = [
      {},
      { retryAfterDays: [] },
      { retryAfterDays: [0] },
      { retryAfterDays: [31] },
      { retryAfterDays: [1, 2, 3, 4, 5, 6] },
      { retryAfterDays: [3, 2] },
      { retryAfterDays: [1.5] },
      { retryAfterDays: ['1'] },
      { retryAfterDays: 1 },
      { retryAfterDays: null },
      { retryAfterDays: [1], extra: true },
    ];
    for (const body of bodies) {
      const r = await t.call('PUT', PATH, { key: m.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ statusCode: 400, success: false, message: 'Invalid request parameters' });
    }
    expect(diffSnapshots(before, await snapshotTable())).toEqual([]);
    expect((await t.call('GET', PATH, { key: m.apiKey })).body.data.retryAfterDays).toEqual([2]);
  });

  it("each merchant has its own (a provider sets its merchant's with X-Entity-Id); banks are refused; a repeated PUT is harmless", async () => {
    const a = await recurringAgreement(t, { withProvider: true });
    const other = await t.participant('merchant');
    const viaProvider = await t.call('PUT', PATH, {
      key: a.provider!.apiKey,
      headers: { 'x-entity-id': a.merchant.id },
      body: { retryAfterDays: [5, 10] },
    });
    expect(viaProvider.status).toBe(200);
    expect((await t.call('GET', PATH, { key: a.merchant.apiKey })).body.data.retryAfterDays).toEqual([5, 10]);
    expect((await t.call('GET', PATH, { key: other.apiKey })).body.data).toEqual({ retryAfterDays: [1, 1, 1], isDefault: true });
    expect((await t.call('PUT', PATH, { key: other.apiKey, body: { retryAfterDays: [4] } })).status).toBe(200);
    expect((await t.call('GET', PATH, { key: a.merchant.apiKey })).body.data.retryAfterDays).toEqual([5, 10]);

    const bank = await t.call('PUT', PATH, { key: a.bank.apiKey, body: { retryAfterDays: [1] } });
    expect(bank.status).toBe(403);
    expect(bank.body.message).toBe('Forbidden for this participant type');
    expect((await t.call('GET', PATH, { key: a.provider!.apiKey })).status).toBe(400); // no X-Entity-Id

    // PUT sets the whole policy: repeating it (a client's retry) gives the same answer and state.
    const first = await t.call('PUT', PATH, { key: a.merchant.apiKey, body: { retryAfterDays: [2] } });
    const again = await t.call('PUT', PATH, { key: a.merchant.apiKey, body: { retryAfterDays: [2] } });
    expect(first.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await t.call('GET', PATH, { key: a.merchant.apiKey })).body.data.retryAfterDays).toEqual([2]);
  });
});

describe("the policy drives a declined run's retries (DESIGN 8.6)", () => {
  it('[1, 3]: a retry moved past a weekend and a holiday, the next 3 days later, then willRetry false and the next period', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    expect((await t.call('PUT', PATH, { key: a.merchant.apiKey, body: { retryAfterDays: [1, 3] } })).status).toBe(200);
    // Friday 28 Sep 2029: +1 day is Saturday; Sunday; Monday 1 Oct is Independence Day -> Tuesday 2 Oct.
    const start = '2029-09-28T08:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start });
    const attempts: [string, Record<string, unknown>][] = [
      [start, { willRetry: true, nextRetryAt: '2029-10-02T08:00:00.000Z' }],
      ['2029-10-02T08:00:00.000Z', { willRetry: true, nextRetryAt: '2029-10-05T08:00:00.000Z' }],
      ['2029-10-05T08:00:00.000Z', { willRetry: false }],
    ];
    for (const [i, [at, expected]] of attempts.entries()) {
      await tickAt(t, at);
      const bills = await runBills(id);
      expect(bills, `attempt ${i} at ${at}`).toHaveLength(i + 1);
      const b = bills.find((x) => x.runSeq === i + 1)!;
      expect(b.createdAt).toBe(at);
      expect((await bankResponse(t, a.bank, b.billingRequestId, 'deny', null, 'insufficient_funds')).status).toBe(200);
      const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b.billingRequestId);
      expect(res!.data).toMatchObject({ status: 'declined', reason: 'insufficient_funds', scheduleId: id, ...expected });
      if (expected.willRetry === false) expect(res!.data.nextRetryAt).toBeUndefined();
      // Nothing runs the day before the announced retry.
      if (typeof expected.nextRetryAt === 'string') {
        await tickAt(t, new Date(Date.parse(expected.nextRetryAt) - 1000));
        expect(await runBills(id)).toHaveLength(i + 1);
        expect((await stored(id)).nextBillingDate).toBe(expected.nextRetryAt);
      }
    }
    // The policy is used up: the period is given up; the next one is its own date (a Sunday: periods are not moved).
    const s = await stored(id);
    expect(s).toMatchObject({ status: 'active', failedAttempts: 3, totalBillings: 0, nextBillingDate: '2029-10-28T08:00:00.000Z' });
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('a change of policy applies to the runs that start after it, not to the run at the bank', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-11-05T08:00:00.000Z'; // a Monday
    const id = await newSchedule(t, a, { startDate: start });
    await tickAt(t, start);
    const [b] = await runBills(id);
    expect((await t.call('PUT', PATH, { key: a.merchant.apiKey, body: { retryAfterDays: [7] } })).status).toBe(200);
    expect((await bankResponse(t, a.bank, b!.billingRequestId, 'deny', null, 'account_unavailable')).status).toBe(200);
    const [res] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === b!.billingRequestId);
    // Started under the default [1, 1, 1]: retried the next day, as announced.
    expect(res!.data).toMatchObject({ willRetry: true, nextRetryAt: '2029-11-06T08:00:00.000Z' });
    expect((await stored(id)).nextBillingDate).toBe('2029-11-06T08:00:00.000Z');
    // The retry starts under [7]: its one retry was the default's first; [7] has no second -> willRetry false.
    await tickAt(t, '2029-11-06T08:00:00.000Z');
    const retry = (await runBills(id)).find((x) => x.runSeq === 2)!;
    expect((await bankResponse(t, a.bank, retry.billingRequestId, 'deny', null, 'bank_declined')).status).toBe(200);
    const [last] = await events(rx, a.hooks!.merchant, 'billing.response', 1, (e) => e.data.billingRequestId === retry.billingRequestId);
    expect(last!.data).toMatchObject({ willRetry: false });
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('declineReason is only for deny (400 with suspended or approvals) and shows as the reason', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-11-12T08:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start });
    await tickAt(t, start);
    const [b] = await runBills(id);
    for (const body of [
      { billingRequestId: b!.billingRequestId, action: 'suspended', declineReason: 'insufficient_funds' },
      {
        billingRequestId: b!.billingRequestId,
        action: 'approve_recurring',
        bankTransactionId: 'BTX-1',
        declineReason: 'insufficient_funds',
      },
      { billingRequestId: b!.billingRequestId, action: 'deny', declineReason: 'no_reason' },
    ]) {
      const r = await t.call('POST', '/v1/billing/bank-response', { key: a.bank.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
    }
    expect((await runBills(id))[0]!.status).toBe('pending');
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });
});
