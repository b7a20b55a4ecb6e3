/**
 * Schedule control (DESIGN 8.6): the merchant skips the next run
 * (`schedule.run_skipped`, actor merchant), and a pause with `resumesAt` resumes by itself at
 * that time through the due index (`schedule.resumed`, actor system), exactly once; a manual
 * resume first cancels it. Real local stack; time driven with the tick.
 */
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { events, receivedEvents } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { newSchedule, recurringAgreement, runBills, stored, tickAt } from '../support/recurring-fixtures';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

const quiet = () => sleep(400);

describe('merchant skip (DESIGN 8.6)', () => {
  it('the next run is not billed; schedule.run_skipped with actor merchant and the reason; 404 for another merchant', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-09-03T09:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start, frequency: 'weekly' });
    const other = await t.participant('merchant');
    const foreign = await t.call('POST', `/v1/recurring/${id}/skip`, { key: other.apiKey, body: {} });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Recurring schedule not found');

    const r = await t.call('POST', `/v1/recurring/${id}/skip`, { key: a.merchant.apiKey, body: { reason: 'Gym closed for works' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      message: 'Recurring run skipped',
      data: { scheduleId: id, skippedRunAt: start, nextBillingDate: '2029-09-10T09:00:00.000Z' },
    });
    const [ev] = await events(rx, a.hooks!.merchant, 'schedule.run_skipped', 1, (e) => e.data.scheduleId === id);
    expect(ev!.data).toMatchObject({ actor: 'merchant', reason: 'Gym closed for works', skippedRunAt: start });
    await tickAt(t, start);
    expect(await runBills(id)).toHaveLength(0);
    await tickAt(t, '2029-09-10T09:00:00.000Z');
    expect(await runBills(id)).toHaveLength(1);
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });
});

describe('pause with resumesAt (DESIGN 8.6)', () => {
  it('resumes by itself at resumesAt (not a second before), with actor system, once; the next run then bills', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const start = '2029-10-01T09:00:00.000Z';
    const id = await newSchedule(t, a, { startDate: start, frequency: 'weekly' });
    const resumesAt = '2029-10-20T12:00:00.000Z';
    const p = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { reason: 'holiday', resumesAt } });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ scheduleId: id, status: 'paused', resumesAt });
    const [paused] = await events(rx, a.hooks!.merchant, 'schedule.paused', 1, (e) => e.data.scheduleId === id);
    expect(paused!.data).toMatchObject({ actor: 'merchant', resumesAt });

    // Paused over two run dates: nothing bills.
    await tickAt(t, start);
    await tickAt(t, '2029-10-08T09:00:00.000Z');
    await tickAt(t, '2029-10-20T11:59:59.000Z');
    expect(await runBills(id)).toHaveLength(0);
    expect((await stored(id)).status).toBe('paused');

    await tickAt(t, resumesAt);
    const s = await stored(id);
    expect(s).toMatchObject({ status: 'active', resumesAt: null });
    // Resumed at resumesAt: the periods missed while paused are skipped, never billed late.
    expect(s.nextBillingDate).toBe('2029-10-22T09:00:00.000Z');
    const [resumed] = await events(rx, a.hooks!.merchant, 'schedule.resumed', 1, (e) => e.data.scheduleId === id);
    expect(resumed!.data.actor).toBe('system');
    expect(resumed!.data).not.toHaveProperty('reason');
    await tickAt(t, '2029-10-20T12:00:01.000Z');
    await tickAt(t, resumesAt);
    await quiet();
    expect(receivedEvents(rx, a.hooks!.merchant, 'schedule.resumed').filter((e) => e.data.scheduleId === id)).toHaveLength(1);
    // Active again: its next date bills.
    await tickAt(t, '2029-10-22T09:00:00.000Z');
    expect((await runBills(id)).map((b) => b.createdAt)).toEqual(['2029-10-22T09:00:00.000Z']);
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('a manual resume before resumesAt cancels the automatic one (no second schedule.resumed)', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await newSchedule(t, a, { startDate: '2030-01-07T09:00:00.000Z', frequency: 'weekly' });
    expect(
      (await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { resumesAt: '2030-01-05T00:00:00Z' } })).status,
    ).toBe(200);
    expect((await t.call('POST', `/v1/recurring/${id}/resume`, { key: a.merchant.apiKey, body: {} })).status).toBe(200);
    expect((await stored(id)).resumesAt).toBeNull();
    await tickAt(t, '2030-01-05T00:00:00.000Z');
    await quiet();
    const resumed = receivedEvents(rx, a.hooks!.merchant, 'schedule.resumed').filter((e) => e.data.scheduleId === id);
    expect(resumed.map((e) => e.data.actor)).toEqual(['merchant']);
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });

  it('resumesAt in the past or malformed is 400 and changes nothing', async () => {
    const a = await recurringAgreement(t, { receiver: rx });
    const id = await newSchedule(t, a, { startDate: '2030-03-04T09:00:00.000Z' });
    const before = await stored(id);
    for (const resumesAt of [new Date(Date.now() - 60_000).toISOString(), 'tomorrow', 5]) {
      const r = await t.call('POST', `/v1/recurring/${id}/pause`, { key: a.merchant.apiKey, body: { resumesAt } });
      expect(r.status, String(resumesAt)).toBe(400);
      expect(r.body.message).toBe('Invalid request parameters');
      expect(r.body.errors[0].path).toBe('resumesAt');
    }
    expect(await stored(id)).toEqual(before);
    await t.call('DELETE', `/v1/recurring/${id}`, { key: a.merchant.apiKey });
  });
});
