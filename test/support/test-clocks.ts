/**
 * Helpers of the test-clock tests (test/integration/test-clocks*.test.ts; DESIGN 8.7), on the
 * sandbox world (support/sandbox-world.ts): a premium merchant with an agreement the
 * simulated bank approved, and its clocks (create, call, advance driven by real ticks).
 */
import { expect } from 'vitest';
import type { Receiver } from '../../local/receiver';
import type { TestApp } from './app';
import { events, lookupPhraseFor, merchantWithTrust, webhook, type Hook, type Party } from './flows';
import { letSimulatedBankAnswer, magicEmail } from './sandbox-world';

export interface ClockWorld {
  t: TestApp;
  merchant: Party;
  hook: Hook;
  agreementPhrase: string;
  customerId: string;
}

/** A premium merchant with an approve_recurring agreement of approve.recurring@ (the simulated bank answers). */
export async function clockWorld(t: TestApp, rx: Receiver, sim: Party): Promise<ClockWorld> {
  const { merchant } = await merchantWithTrust(t, { trusted: true, trustLevel: 'premium' });
  const hook = await webhook(t, rx, merchant, { label: 'merchant' });
  const phrase = await lookupPhraseFor(t, merchant, magicEmail('approve.recurring'), sim.id);
  const r = await t.call('POST', '/v1/billing/intent', {
    key: merchant.apiKey,
    body: { lookupPhrases: [phrase], currency: 'NGN', description: 'Clocked plan' },
  });
  expect(r.status).toBe(200);
  await letSimulatedBankAnswer(t);
  const [e] = await events(rx, hook, 'billing.intent.response', 1, (x) => x.data.lookupPhrase === phrase);
  return { t, merchant, hook, agreementPhrase: e!.data.agreementPhrase, customerId: e!.data.customerId };
}

export const clockCall = (w: ClockWorld, method: string, path: string, body?: unknown) =>
  w.t.call(method, `/v1/sandbox/test-clocks${path}`, { key: w.merchant.apiKey, body });

export async function newClock(w: ClockWorld, frozenTime: string): Promise<string> {
  const r = await clockCall(w, 'POST', '', { frozenTime, name: 'Monthly plan test' });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.clockId;
}

/** Advance and drive the clock's steps with real ticks until it is ready again; the number of steps. */
export async function advance(w: ClockWorld, clockId: string, frozenTime: string, maxSteps = 100): Promise<number> {
  const r = await clockCall(w, 'POST', `/${clockId}/advance`, { frozenTime });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body.data).toMatchObject({ clockId, status: 'advancing', targetTime: frozenTime });
  for (let step = 1; step <= maxSteps; step++) {
    await w.t.app.tick(new Date());
    await w.t.app.settle(60_000);
    const c = await clockCall(w, 'GET', `/${clockId}`);
    if (c.body.data.status === 'ready') {
      expect(c.body.data.frozenTime).toBe(frozenTime);
      return step;
    }
  }
  throw new Error(`clock ${clockId} still advancing after ${maxSteps} steps`);
}

/** A schedule of the world's customer created on the clock (`X-Test-Clock`); its id (asserting 201). */
export async function clockedSchedule(w: ClockWorld, clockId: string, body: Record<string, unknown>): Promise<string> {
  const r = await w.t.call('POST', '/v1/billing/recurring/create', {
    key: w.merchant.apiKey,
    headers: { 'x-test-clock': clockId },
    body: { customerId: w.customerId, agreementPhrase: w.agreementPhrase, currency: 'NGN', ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.scheduleId as string;
}

/** The example of DESIGN 8.7: monthly from 2027-01-31, three billings (advance a clock from 2027-01-01 to 2027-04-01). */
export const JAN_31_EXAMPLE = { amount: 1500, frequency: 'monthly', startDate: '2027-01-31T09:00:00.000Z', maxBillings: 3 };
