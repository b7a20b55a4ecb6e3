/**
 * Sandbox test clocks over a year (DESIGN 8.7): a daily schedule advanced a year
 * gives 365 runs, each on its day, answered by the simulated bank, each settled on a Lagos
 * business day, the ledger balanced; the advance goes in bounded steps. ~1 minute alone: it
 * runs in the `timed` project (test/projects.ts TIMED_FILES), after every other file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app';
import { advance, clockedSchedule, clockWorld, newClock } from '../support/test-clocks';
import type { Hook, Party } from '../support/flows';
import { startSandboxWorld, stopSandboxWorld } from '../support/sandbox-world';
import type { Receiver } from '../../local/receiver';
import { getBill, ledgerProblems } from '../support/billing-table';
import { settlementIdsOf } from '../../functions/transactions/store';
import { runBills, stored } from '../support/recurring-fixtures';
import { isBusinessDay, settlementDate } from '../../functions/domain/business-days';

let t: TestApp;
let rx: Receiver;
let sim: Party;
let simHook: Hook;

beforeAll(async () => {
  ({ t, rx, sim, simHook } = await startSandboxWorld());
});
afterAll(() => stopSandboxWorld({ t, rx }));

describe('test clocks over a year (DESIGN 8.7)', () => {
  it('a daily schedule advanced a year: 365 runs, each on its day, 365 settled on business days, the ledger balanced; bounded steps', async () => {
    const w = await clockWorld(t, rx, sim);
    // What this test reads is stored (bills, settlements, the ledger), not delivered: no
    // endpoint takes the year's ~1,300 deliveries while the clock advances.
    for (const [key, hook] of [
      [w.merchant.apiKey, w.hook],
      [sim.apiKey, simHook],
    ] as const) {
      expect((await t.call('DELETE', `/v1/webhooks/endpoints/${hook.endpointId}`, { key })).status).toBe(200);
    }
    const clockId = await newClock(w, '2027-01-01T00:00:00.000Z');
    const id = await clockedSchedule(w, clockId, {
      amount: 10,
      frequency: 'daily',
      startDate: '2027-01-01T08:00:00.000Z',
      endDate: '2027-12-31T08:00:00.000Z',
    });
    // Past Monday 3 Jan 2028: the Friday 31 Dec run's funds settle then.
    const steps = await advance(w, clockId, '2028-01-04T00:00:00.000Z', 400);
    expect(steps).toBeGreaterThan(1); // bounded steps, not one long call
    const bills = await Promise.all((await runBills(id)).map((b) => getBill(b.billingRequestId)));
    expect(bills).toHaveLength(365);
    expect(new Set(bills.map((b) => b!.createdAt.slice(0, 10))).size).toBe(365);
    expect(bills.every((b) => b!.createdAt.endsWith('T08:00:00.000Z') && b!.status === 'succeeded')).toBe(true);
    expect(await stored(id)).toMatchObject({ status: 'completed', totalBillings: 365, completionReason: 'end_date' });
    // Each run settled, on the first Lagos business day after its capture.
    const settled = await settlementIdsOf(bills.map((b) => b!));
    for (const b of bills) {
      expect(settled.get(b!.billingRequestId), b!.createdAt).toBeDefined();
      expect(b!.settlementDate).toBe(settlementDate(new Date(b!.createdAt)).date);
      expect(isBusinessDay(b!.settlementDate!)).toBe(true);
    }
    expect(await ledgerProblems(w.merchant.id)).toEqual([]);
  }, 900_000);
});
