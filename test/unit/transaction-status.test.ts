/** The transaction view (pure): status mapping, shape, visibility. */
import { describe, expect, it } from 'vitest';
import type { BillItem } from '../../functions/bills/types';
import { canSee, toTransaction, transactionStatus, transactionScope } from '../../functions/transactions/store';

const bill = (over: Partial<BillItem> = {}): BillItem => ({
  pk: 'BILL#breq_1',
  sk: 'BILL',
  billingRequestId: 'breq_1',
  reference: 'txn_1',
  type: 'agreement',
  status: 'succeeded',
  merchantId: 'mer_1',
  merchantName: 'Ada Stores',
  providerId: 'prv_1',
  bankId: 'bnk_1',
  customerId: 'cus_1',
  decisionId: 'dec_1',
  amount: 10_000,
  currency: 'NGN',
  description: 'Order',
  requiresApproval: false,
  periods: { day: '2030-01-01', week: '2030-W01', month: '2030-01' },
  refundedAmount: 0,
  refundReserved: 0,
  createdAt: '2030-01-01T10:00:00.000Z',
  updatedAt: '2030-01-01T10:00:01.000Z',
  ...over,
});

describe('transactionStatus', () => {
  it('is the billing status while nothing was refunded', () => {
    for (const status of ['pending', 'succeeded', 'declined', 'expired', 'failed'] as const) {
      expect(transactionStatus(bill({ status }))).toBe(status);
    }
  });
  it('reserved (pending) refunds do not change it; completed ones do', () => {
    expect(transactionStatus(bill({ refundReserved: 10_000 }))).toBe('succeeded');
    expect(transactionStatus(bill({ refundedAmount: 1 }))).toBe('partially_refunded');
    expect(transactionStatus(bill({ refundedAmount: 9_999 }))).toBe('partially_refunded');
    expect(transactionStatus(bill({ refundedAmount: 10_000 }))).toBe('refunded');
  });
  it('treats a missing refundedAmount as 0', () => {
    const b = bill();
    delete (b as Partial<BillItem>).refundedAmount;
    expect(transactionStatus(b)).toBe('succeeded');
  });
});

describe('toTransaction', () => {
  it('shows exactly the contract fields, amounts in major units, nulls for absent ids', () => {
    expect(toTransaction(bill({ refundedAmount: 2_550 }))).toEqual({
      reference: 'txn_1',
      billingRequestId: 'breq_1',
      type: 'agreement',
      status: 'partially_refunded',
      amount: 100,
      refundedAmount: 25.5,
      currency: 'NGN',
      description: 'Order',
      customerId: 'cus_1',
      entityId: 'mer_1',
      merchantName: 'Ada Stores',
      bankTransactionId: null,
      scheduleId: null,
      settlementId: null,
      disputedAmount: 0,
      disputeStatus: null,
      createdAt: '2030-01-01T10:00:00.000Z',
      updatedAt: '2030-01-01T10:00:01.000Z',
    });
    expect(toTransaction(bill({ bankTransactionId: 'BTX', scheduleId: 'sch_1', type: 'recurring' }))).toMatchObject({
      bankTransactionId: 'BTX',
      scheduleId: 'sch_1',
      type: 'recurring',
    });
  });
  it('keeps internal attributes out', () => {
    const shown = toTransaction(bill({ gsi2pk: 'MTXN#mer_1', duePk: 'DUE#1' } as Partial<BillItem>)) as unknown as Record<string, unknown>;
    for (const k of ['pk', 'gsi2pk', 'duePk', 'decisionId', 'periods', 'refundReserved', 'bankId', 'providerId'])
      expect(shown[k]).toBeUndefined();
  });
});

describe('visibility', () => {
  it("merchant, its provider and the customer's bank; nobody else", () => {
    const b = bill();
    expect(canSee({ kind: 'merchant', id: 'mer_1' }, b)).toBe(true);
    expect(canSee({ kind: 'merchant', id: 'mer_2' }, b)).toBe(false);
    expect(canSee({ kind: 'provider', id: 'prv_1' }, b)).toBe(true);
    expect(canSee({ kind: 'provider', id: 'prv_2' }, b)).toBe(false);
    expect(canSee({ kind: 'provider', id: 'prv_1' }, bill({ providerId: undefined }))).toBe(false);
    expect(canSee({ kind: 'bank', id: 'bnk_1' }, b)).toBe(true);
    expect(canSee({ kind: 'bank', id: 'bnk_2' }, b)).toBe(false);
    expect(canSee({ kind: 'operator', id: 'operator' }, b)).toBe(false);
  });
  it("lists come from the owner's keys-only index (banks and providers: every shard) and the former index", () => {
    expect(transactionScope({ kind: 'merchant', id: 'm' })).toEqual([
      { index: 'gsi5', pkName: 'gsi5pk', skName: 'lsk', pk: 'MTXN#m' },
      { index: 'gsi2', pkName: 'gsi2pk', skName: 'gsi2sk', pk: 'MTXN#m' },
    ]);
    const bank = transactionScope({ kind: 'bank', id: 'b' });
    expect(bank.map((s) => s.pk)).toEqual([...Array.from({ length: 8 }, (_, n) => `BTXN#b#${n}`), 'BTXN#b']);
    expect(bank.map((s) => s.index)).toEqual([...Array(8).fill('gsi6'), 'gsi3']);
    const provider = transactionScope({ kind: 'provider', id: 'p' });
    expect(provider.map((s) => s.pk)).toEqual([...Array.from({ length: 8 }, (_, n) => `PTXN#p#${n}`), 'PTXN#p']);
    expect(provider.map((s) => s.index)).toEqual([...Array(8).fill('gsi7'), 'gsi4']);
  });
});
