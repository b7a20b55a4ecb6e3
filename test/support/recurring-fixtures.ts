/**
 * Shared helpers of the recurring integration tests: a premium merchant's approve_recurring
 * agreement through the real flow, schedule creation, and direct reads of the schedule and
 * its run billings (the app runs in this process, so the store talks to the test's table).
 */
import type { BillItem } from '../../functions/bills/types';
import { getSchedule, type ScheduleItem } from '../../functions/recurring/views';
import type { TestApp } from './app';
import type { TickResult } from '../../local/app';
import { bills } from './billing-table';
import { agreement, type Agreement, type AgreementOptions } from './flows';

/** A merchant trusted premium (under a provider) with an approve_recurring decision. */
export function recurringAgreement(t: TestApp, opts: AgreementOptions = {}): Promise<Agreement> {
  return agreement(t, { decision: 'approve_recurring', trustLevel: 'premium', withProvider: true, ...opts });
}

export interface ScheduleBody {
  customerId?: string;
  agreementPhrase?: string;
  amount?: unknown;
  currency?: unknown;
  frequency?: unknown;
  interval?: unknown;
  startDate?: unknown;
  endDate?: unknown;
  maxBillings?: unknown;
  description?: unknown;
  metadata?: unknown;
  [k: string]: unknown;
}

export function scheduleBody(a: Pick<Agreement, 'customerId' | 'agreementPhrase'>, over: ScheduleBody = {}): Record<string, unknown> {
  return {
    customerId: a.customerId,
    agreementPhrase: a.agreementPhrase,
    amount: 2500,
    currency: 'NGN',
    frequency: 'monthly',
    startDate: '2027-01-31T09:00:00.000Z',
    description: 'Gym membership',
    ...over,
  };
}

export function createSchedule(
  t: TestApp,
  a: Pick<Agreement, 'merchant' | 'customerId' | 'agreementPhrase'>,
  over: ScheduleBody = {},
  headers?: Record<string, string>,
) {
  return t.call('POST', '/v1/billing/recurring/create', { key: a.merchant.apiKey, headers, body: scheduleBody(a, over) });
}

/** Create and return the scheduleId (asserting 201). */
export async function newSchedule(
  t: TestApp,
  a: Pick<Agreement, 'merchant' | 'customerId' | 'agreementPhrase'>,
  over: ScheduleBody = {},
): Promise<string> {
  const r = await createSchedule(t, a, over);
  if (r.status !== 201) throw new Error(`create schedule: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.scheduleId as string;
}

/** The billings a schedule's runs created, by run sequence number. */
export async function runBills(scheduleId: string): Promise<BillItem[]> {
  return (await bills()).filter((b) => b.scheduleId === scheduleId).sort((x, y) => (x.runSeq ?? 0) - (y.runSeq ?? 0));
}

export const stored = (scheduleId: string) => getSchedule(scheduleId) as Promise<ScheduleItem>;

/** Tick at `at` and wait until the jobs (and webhook deliveries) are done. */
export async function tickAt(t: TestApp, at: string | Date): Promise<TickResult> {
  const r = await t.app.tick(typeof at === 'string' ? new Date(at) : at);
  await t.app.settle(30_000);
  return r;
}

export const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString();
