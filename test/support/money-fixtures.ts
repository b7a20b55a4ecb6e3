/**
 * Fixtures for the money tests: billing requests written with the billing flow's own code
 * (`buildBillItem`, `settleBilling`) at CHOSEN times, so captures land on the settlement
 * days a test needs (weekends, holidays). The app runs in this process: these talk to the
 * test file's own table. End-to-end tests use test/support/flows.ts instead.
 */
import { expect } from 'vitest';
import { buildBillItem } from '../../functions/billing/bill-item';
import { settleBilling } from '../../functions/billing/settle-billing';
import { newId, randomToken } from '../../functions/domain/ids';
import { periodKeys } from '../../functions/domain/lagos-time';
import { billKey, type BillItem, type BillingStatus } from '../../functions/bills/types';
import { checkLedger } from '../../functions/ledger/invariant';
import { getItem, putItem } from '../../functions/platform/table';
import { scanPrefix } from './billing-table';
import { sleep } from '../../functions/platform/retry';

export interface Parties {
  merchant: { id: string; name: string; providerId?: string };
  bankId: string;
}

export interface FixtureBill {
  parties: Parties;
  /** Minor units. */
  amount: number;
  /** Default: `capturedAt` (or now). */
  createdAt?: Date;
  /** Captures (bank approval) at this time; omit for a bill left in `status`. */
  capturedAt?: Date;
  /** For a bill that is not captured: its status (default pending). */
  status?: Exclude<BillingStatus, 'succeeded'>;
  customerId?: string;
  description?: string;
}

/** Writes a billing request; with `capturedAt`, approves it through the billing flow's settle code at that time. */
export async function fixtureBill(f: FixtureBill): Promise<BillItem> {
  const createdAt = f.createdAt ?? f.capturedAt ?? new Date();
  const b = buildBillItem({
    billingRequestId: newId('breq'),
    type: 'agreement',
    merchant: f.parties.merchant,
    customer: { id: f.customerId ?? `cus_${randomToken(10)}`, bankId: f.parties.bankId },
    decisionId: `dec_${randomToken(12)}`,
    amount: f.amount,
    currency: 'NGN',
    description: f.description ?? 'Fixture order',
    requiresApproval: false,
    periods: periodKeys(createdAt),
    createdAt: createdAt.toISOString(),
  });
  if (f.capturedAt) {
    await putItem(b, 'attribute_not_exists(pk)');
    const r = await settleBilling(
      b,
      { status: 'succeeded', action: 'approve_once', bankTransactionId: `BTX-${randomToken(8)}` },
      f.capturedAt,
    );
    if (!r.ok) throw new Error(`fixture capture failed: ${JSON.stringify(r)}`);
    return (await getItem<BillItem>(billKey(b.billingRequestId)))!;
  }
  const status = f.status ?? 'pending';
  await putItem({ ...b, status }, 'attribute_not_exists(pk)');
  return (await getItem<BillItem>(billKey(b.billingRequestId)))!;
}

/** Every item whose pk starts with `prefix` (full scan; test tables are small). */
export const scan = scanPrefix;

/** The ledger invariant over every merchant of the table: no problems. */
export async function expectLedgerInvariant(): Promise<void> {
  const report = await checkLedger();
  expect(report.problems).toEqual([]);
  expect(report.imbalance).toBe(0);
}

/** Waits until `fn` returns a truthy value (polling). */
export async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

/** Lagos wall-clock time -> Date (Lagos is UTC+1 all year). */
export const lagos = (isoLocal: string) => new Date(`${isoLocal}+01:00`);
