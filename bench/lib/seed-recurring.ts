/**
 * Seeding for the recurring benchmarks (bench/recurring.ts, bench/test-clock.ts): N customers
 * of one bank, their approve_recurring decisions with a merchant (limits that never refuse),
 * and one schedule each, written through the stores' own builders with BatchWriteItem (the
 * runs then go through the real path). Inside a test clock's context (platform/clock.ts) the
 * schedules' due entries land on the clock's partition, as a request with X-Test-Clock does.
 */
import { batchPut, buildCustomer } from '../../functions/customers/store';
import { NO_TERMS } from '../../functions/domain/consent';
import { issueAgreementPhrase } from '../../functions/domain/agreement-phrase';
import { decisionId } from '../../functions/domain/decisions';
import type { Frequency } from '../../functions/domain/schedule-dates';
import { newDecisionItem } from '../../functions/decisions/store';
import { nowIso, type Item } from '../../functions/platform/table';
import { buildSchedule } from '../../functions/recurring/store';
import type { ScheduleItem } from '../../functions/recurring/views';
import { mapLimit } from './stats';

export interface SeedOptions {
  n: number;
  bankId: string;
  merchantId: string;
  providerId?: string;
  frequency: Frequency;
  startDate: string;
  endDate?: string | null;
  maxBillings?: number | null;
  /** The customers' email (default `ada<i>@bench.test`); a magic email makes the simulated bank answer. */
  email?: (i: number) => string;
}

export async function seedSchedules(o: SeedOptions): Promise<ScheduleItem[]> {
  const now = nowIso();
  const items: Item[] = [];
  const schedules: ScheduleItem[] = [];
  for (let i = 0; i < o.n; i++) {
    const c = buildCustomer(
      o.bankId,
      'bat_bench',
      {
        clientRef: `CR-${i}`,
        firstname: 'Ada',
        lastname: `Obi${i}`,
        email: o.email?.(i) ?? `ada${i}@bench.test`,
        country: 'NG',
        accountNumber: String(1_000_000_000 + i),
        reference: `REF-${i}`,
      },
      now,
    );
    const id = decisionId(o.merchantId, c.id);
    const d = newDecisionItem(
      { customerId: c.id, bankId: o.bankId, merchantId: o.merchantId, agreementPhrase: await issueAgreementPhrase(id, o.merchantId) },
      {
        decision: 'approve_recurring',
        spendingLimits: { single: 1_000_000, monthly: 50_000_000 },
        blockMerchant: false,
        lookupPhrase: `lp_bench${i}`,
        terms: NO_TERMS,
      },
      now,
    );
    const s = buildSchedule(
      {
        merchantId: o.merchantId,
        ...(o.providerId ? { providerId: o.providerId } : {}),
        bankId: o.bankId,
        customerId: c.id,
        clientRef: c.clientRef,
        decisionId: d.id,
        agreementPhrase: d.agreementPhrase,
        amount: 250_000,
        currency: 'NGN',
        frequency: o.frequency,
        interval: 1,
        startDate: o.startDate,
        endDate: o.endDate ?? null,
        maxBillings: o.maxBillings ?? null,
        description: 'Gym membership',
        metadata: null,
      },
      now,
    );
    items.push(c as unknown as Item, d as unknown as Item, s as unknown as Item);
    schedules.push(s);
  }
  const chunks: Item[][] = [];
  for (let i = 0; i < items.length; i += 500) chunks.push(items.slice(i, i + 500));
  await mapLimit(chunks, 8, (c) => batchPut(c));
  return schedules;
}
