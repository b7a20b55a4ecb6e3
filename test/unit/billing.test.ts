/**
 * Pure parts of the billing flow: refusal rules per billing type, approval need, the billing
 * item (indexes, due entry), event payloads, ids, outcome reasons, expiry checks, and the
 * release of a reservation under the periods it was made in (Lagos midnight).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EXPIRY_KIND,
  EXPIRY_LEAD_MS,
  BILL_EVENT_DERIVERS,
  billingRequestEvent,
  billingRequestIdFor,
  billingResponseEvent,
  buildBillItem,
  isBillingRequestIdShaped,
  type NewBill,
  billingRequestIdOfReference,
} from '../../functions/billing/bill-item';
import { counterItem } from '../../functions/billing/create-billing';
import { billingRefusalFor as refusalFor, billingRequiresApproval } from '../../functions/domain/decisions';
import { NEW_MERCHANT_TRUST, type TrustState } from '../../functions/domain/trust';

const TRUSTED: TrustState = { trusted: true, trustLevel: 'premium', deviceLookupEnabled: false };
const needsApproval = (type: 'agreement' | 'one_time' | 'recurring', d: Parameters<typeof billingRequiresApproval>[1]) =>
  billingRequiresApproval(type, d, TRUSTED);
import { isPastExpiry } from '../../functions/billing/settle-billing';
import { billingOutcomeReason as reasonOf } from '../../functions/bills/outcome';
import { periodKeys } from '../../functions/domain/lagos-time';
import { billPeriods, type BillItem, type BillingStatus } from '../../functions/bills/types';
import { limitConditions, limitRelease } from '../../functions/domain/limits';
import type { DecisionItem } from '../../functions/decisions/views';

beforeAll(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

const decision = (over: Partial<DecisionItem>): DecisionItem =>
  ({
    pk: 'DEC#dec_1',
    sk: 'DEC',
    id: 'dec_1',
    customerId: 'cus_1',
    bankId: 'bnk_1',
    merchantId: 'mer_1',
    lookupPhrase: 'lp_x',
    decision: 'approve_once',
    spendingLimits: {},
    blockMerchant: false,
    agreementPhrase: 'ap_x',
    createdAt: '2026-11-22T00:00:00.000Z',
    lastUpdated: '2026-11-22T00:00:00.000Z',
    lastUsed: null,
    version: 1,
    ...over,
  }) as DecisionItem;

describe('refusal rules (DESIGN 6.9 precedence)', () => {
  it('agreement: blocked first, then no decision / deny / suspended', () => {
    expect(refusalFor('agreement', undefined)).toBe('not_approved');
    expect(refusalFor('agreement', decision({ decision: 'deny' }))).toBe('not_approved');
    expect(refusalFor('agreement', decision({ decision: 'suspended' }))).toBe('not_approved');
    expect(refusalFor('agreement', decision({ decision: 'deny', blockMerchant: true }))).toBe('merchant_blocked');
    expect(refusalFor('agreement', decision({ decision: 'approve_recurring', blockMerchant: true }))).toBe('merchant_blocked');
    expect(refusalFor('agreement', decision({ decision: 'approve_once' }))).toBeUndefined();
    expect(refusalFor('agreement', decision({ decision: 'approve_recurring' }))).toBeUndefined();
  });

  it('one_time: only a block stops it (rule 3: independent of the agreement flow)', () => {
    expect(refusalFor('one_time', undefined)).toBeUndefined();
    expect(refusalFor('one_time', decision({ decision: 'deny' }))).toBeUndefined();
    expect(refusalFor('one_time', decision({ decision: 'suspended' }))).toBeUndefined();
    expect(refusalFor('one_time', decision({ decision: 'approve_once', blockMerchant: true }))).toBe('merchant_blocked');
  });

  it('recurring: needs approve_recurring and no block', () => {
    expect(refusalFor('recurring', decision({ decision: 'approve_once' }))).toBe('not_approved');
    expect(refusalFor('recurring', decision({ decision: 'approve_recurring' }))).toBeUndefined();
    expect(refusalFor('recurring', decision({ decision: 'approve_recurring', blockMerchant: true }))).toBe('merchant_blocked');
    expect(refusalFor('recurring', undefined)).toBe('not_approved');
  });

  it('approval need: pay always, recurring never, agreement unless approve_recurring', () => {
    expect(needsApproval('one_time', decision({ decision: 'approve_recurring' }))).toBe(true);
    expect(needsApproval('one_time', undefined)).toBe(true);
    expect(needsApproval('recurring', decision({ decision: 'approve_recurring' }))).toBe(false);
    expect(needsApproval('agreement', decision({ decision: 'approve_once' }))).toBe(true);
    expect(needsApproval('agreement', decision({ decision: 'approve_recurring' }))).toBe(false);
  });

  it('DESIGN 8.1: an approve_recurring decision of a merchant no longer trusted bills as approve_once (bill and run)', () => {
    const rec = decision({ decision: 'approve_recurring' });
    const untrusted: TrustState = { ...TRUSTED, trusted: false };
    expect(billingRequiresApproval('agreement', rec, untrusted)).toBe(true);
    expect(billingRequiresApproval('recurring', rec, untrusted)).toBe(true);
    expect(billingRequiresApproval('agreement', rec, NEW_MERCHANT_TRUST)).toBe(true);
    // unknown trust never debits without approval
    expect(billingRequiresApproval('agreement', rec, undefined)).toBe(true);
    expect(billingRequiresApproval('recurring', rec, undefined)).toBe(true);
    // trusted at any level keeps approve_recurring
    expect(billingRequiresApproval('agreement', rec, { ...TRUSTED, trustLevel: 'basic' })).toBe(false);
    expect(billingRequiresApproval('recurring', rec, TRUSTED)).toBe(false);
    // approve_once and pays always ask, trusted or not
    expect(billingRequiresApproval('agreement', decision({ decision: 'approve_once' }), TRUSTED)).toBe(true);
    expect(billingRequiresApproval('one_time', rec, TRUSTED)).toBe(true);
  });
});

describe('billing request ids', () => {
  it('random ids are distinct and well shaped', () => {
    const a = billingRequestIdFor();
    const b = billingRequestIdFor();
    expect(a).not.toBe(b);
    expect(isBillingRequestIdShaped(a)).toBe(true);
  });

  it('seeded ids are deterministic per seed, distinct across seeds, well shaped', () => {
    const a = billingRequestIdFor('key|bill|mer|idem|ap_1');
    expect(billingRequestIdFor('key|bill|mer|idem|ap_1')).toBe(a);
    expect(billingRequestIdFor('key|bill|mer|idem|ap_2')).not.toBe(a);
    expect(a).toMatch(/^breq_k[0-9A-Za-z]{22}$/);
    expect(isBillingRequestIdShaped(a)).toBe(true);
  });

  it('anything else is not an id', () => {
    for (const v of ['', 'breq_', 'txn_abc', 'breq_a-b', `breq_${'a'.repeat(80)}`, 42, null])
      expect(isBillingRequestIdShaped(v)).toBe(false);
  });
});

const base: NewBill = {
  billingRequestId: 'breq_1',
  type: 'agreement',
  merchant: { id: 'mer_1', name: 'Shop' },
  customer: { id: 'cus_1', bankId: 'bnk_1' },
  decisionId: 'dec_1',
  amount: 150050,
  currency: 'NGN',
  description: 'Gym',
  requiresApproval: false,
  periods: periodKeys(new Date('2026-11-22T12:00:00Z')),
  createdAt: '2026-11-22T12:00:00.000Z',
};

describe('the billing item', () => {
  it('is pending, on the merchant list and a shard of the bank list (keys-only indexes); its reference names it; no due entry without approval', () => {
    const b = buildBillItem(base);
    expect(b).toMatchObject({
      pk: 'BILL#breq_1',
      sk: 'BILL',
      status: 'pending',
      amount: 150050,
      refundedAmount: 0,
      refundReserved: 0,
      gsi5pk: 'MTXN#mer_1',
      lsk: '2026-11-22T12:00:00.000Z#breq_1',
    });
    expect(b.gsi6pk).toMatch(/^BTXN#bnk_1#[0-7]$/);
    expect(b.gsi6pk).toBe(buildBillItem(base).gsi6pk);
    expect(b.reference).toBe('txn_1');
    expect(billingRequestIdOfReference(b.reference)).toBe('breq_1');
    // Nothing derivable is stored: the periods come from createdAt; no alternate-key index entry.
    expect(b.periods).toBeUndefined();
    expect(billPeriods(b)).toEqual(base.periods);
    for (const a of ['gsi1pk', 'gsi2pk', 'gsi3pk', 'gsi4pk', 'gsi7pk']) expect(b[a]).toBeUndefined();
    expect(b.duePk).toBeUndefined();
    expect(b.expiresAt).toBeUndefined();
  });

  it("a provider's merchant is on the provider's index; an approval is due one lead before it expires", () => {
    const b = buildBillItem({
      ...base,
      merchant: { id: 'mer_1', name: 'Shop', providerId: 'prv_1' },
      requiresApproval: true,
      expiresAt: '2026-11-22T12:10:00.000Z',
    });
    expect(b.gsi7pk).toMatch(/^PTXN#prv_1#[0-7]$/);
    expect(b.dueSk).toBe(`${new Date(Date.parse('2026-11-22T12:10:00.000Z') - EXPIRY_LEAD_MS).toISOString()}#${EXPIRY_KIND}#breq_1`);
    expect(b.duePk).toMatch(/^DUE#\d+$/);
  });
});

describe('event payloads (DESIGN 6.7)', () => {
  it('billing.request: major units; expiresAt only when approval is needed; scheduleId when recurring', () => {
    const plain = buildBillItem(base);
    expect(billingRequestEvent(plain, 'CR-1')).toEqual({
      billingRequestId: 'breq_1',
      reference: plain.reference,
      type: 'agreement',
      customerId: 'cus_1',
      clientRef: 'CR-1',
      entityId: 'mer_1',
      merchantName: 'Shop',
      amount: 1500.5,
      currency: 'NGN',
      description: 'Gym',
      requiresApproval: false,
    });
    const once = buildBillItem({ ...base, type: 'one_time', requiresApproval: true, expiresAt: '2026-11-22T12:10:00.000Z' });
    expect(billingRequestEvent(once, 'CR-1')).toMatchObject({
      type: 'one_time',
      requiresApproval: true,
      expiresAt: '2026-11-22T12:10:00.000Z',
    });
    const run = buildBillItem({ ...base, type: 'recurring', scheduleId: 'sch_1', runSeq: 3 });
    expect(billingRequestEvent(run, 'CR-1')).toMatchObject({ type: 'recurring', scheduleId: 'sch_1' });
  });

  it('billing.response: customerAction approved only when succeeded', () => {
    const b = buildBillItem(base);
    expect(billingResponseEvent(b, 'succeeded', { bankTransactionId: 'TX' })).toEqual({
      billingRequestId: 'breq_1',
      reference: b.reference,
      entityId: 'mer_1',
      customerId: 'cus_1',
      amount: 1500.5,
      currency: 'NGN',
      status: 'succeeded',
      customerAction: 'approved',
      bankTransactionId: 'TX',
    });
    for (const status of ['declined', 'expired', 'failed'] as const) {
      expect(billingResponseEvent(b, status, { reason: 'r' })).toMatchObject({
        status,
        customerAction: 'declined',
        reason: 'r',
        bankTransactionId: null,
      });
    }
  });

  it('reasons of the outcomes', () => {
    expect(reasonOf({ status: 'succeeded', action: 'approve_once', bankTransactionId: 'x' })).toBeUndefined();
    expect(reasonOf({ status: 'declined', action: 'deny' })).toBe('customer_denied');
    expect(reasonOf({ status: 'declined', action: 'suspended' })).toBe('customer_suspended');
    expect(reasonOf({ status: 'expired' })).toBe('approval_expired');
    expect(reasonOf({ status: 'failed', reason: 'bank_unavailable' })).toBe('bank_unavailable');
  });
});

describe('expiry check', () => {
  const at = new Date('2026-11-22T12:10:00.000Z');
  it('past expiry exactly from expiresAt on, and only for approvals', () => {
    expect(isPastExpiry({ requiresApproval: true, expiresAt: '2026-11-22T12:10:00.000Z' }, at)).toBe(true);
    expect(isPastExpiry({ requiresApproval: true, expiresAt: '2026-11-22T12:10:00.001Z' }, at)).toBe(false);
    expect(isPastExpiry({ requiresApproval: false, expiresAt: undefined }, at)).toBe(false);
  });
});

describe('reservations across Lagos midnight', () => {
  it('a billing reserved at 23:59:59 Lagos releases that day, not the next', () => {
    const reservedAt = new Date('2026-11-22T22:59:59Z'); // 23:59:59 Lagos on the 22nd
    const periods = periodKeys(reservedAt);
    expect(periods.day).toBe('2026-11-22');
    const reserve = limitConditions('dec_1', { daily: 100 }, 100, periods);
    expect(reserve.ok).toBe(true);
    const month = counterItem(limitRelease('dec_1', 100, periods).month);
    expect(month.Update!.Key).toEqual({ pk: 'LIM#dec_1', sk: 'M#2026-11' });
    expect(month.Update!.ExpressionAttributeNames!['#day']).toBe('d22');
    expect(month.Update!.ExpressionAttributeValues![':amt']).toBe(-100);
    // One second later it is the 23rd in Lagos: a new day counter.
    expect(periodKeys(new Date('2026-11-22T23:00:00Z')).day).toBe('2026-11-23');
  });

  it('a week that spans two months reserves in each month item and in one week item', () => {
    const monday = periodKeys(new Date('2026-11-30T12:00:00Z')); // Monday 30 Nov
    const tuesday = periodKeys(new Date('2026-12-01T12:00:00Z'));
    expect(monday.week).toBe(tuesday.week);
    expect(monday.month).not.toBe(tuesday.month);
  });
});

/**
 * A billing's two events are carried on its own item (events/outbox.ts `carry`) and derived
 * by the stream consumer from the item its transaction wrote (BILL_EVENT_DERIVERS): the
 * receiver and data must be exactly those the transaction passed. The item after an answer
 * is built here the way settle-billing's update writes it (status, bankTransactionId when the
 * bank gave one, reason when there is one); the integration tests compare the delivered
 * bodies of the real flow. `image`: the item as a stream record shows it (JSON: what a
 * DynamoDB image can hold).
 */
const image = (b: BillItem) => JSON.parse(JSON.stringify(b)) as Record<string, unknown>;

/** The billing after an answer, as settle-billing's update writes it. */
function answered(b: BillItem, status: Exclude<BillingStatus, 'pending'>, o: { bankTransactionId?: string; reason?: string }): BillItem {
  return {
    ...b,
    status,
    updatedAt: base.createdAt,
    ...(o.bankTransactionId !== undefined ? { bankTransactionId: o.bankTransactionId } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
  };
}

describe("a billing's carried events", () => {
  it('billing.request: to the customer bank, the data the bill transaction passed (clientRef from the marker)', () => {
    for (const n of [
      base,
      { ...base, requiresApproval: true, expiresAt: '2026-11-22T12:05:00.000Z' },
      { ...base, type: 'recurring' as const, scheduleId: 'sch_1', runSeq: 3, runRetryAt: '2026-11-25T12:00:00.000Z' },
    ]) {
      const b = buildBillItem(n);
      expect(BILL_EVENT_DERIVERS['billing.request']!(image(b), { clientRef: 'CR-9' })).toEqual({
        to: 'bnk_1',
        data: billingRequestEvent(b, 'CR-9'),
      });
    }
  });

  it('billing.response: to the merchant, for every outcome, recurring runs with their retry', () => {
    const plain = buildBillItem(base);
    const run = buildBillItem({ ...base, type: 'recurring', scheduleId: 'sch_1', runSeq: 2, runRetryAt: '2026-11-25T12:00:00.000Z' });
    const lastRun = buildBillItem({ ...base, type: 'recurring', scheduleId: 'sch_1', runSeq: 5, runRetryAt: null });
    const outcomes: [Exclude<BillingStatus, 'pending'>, { bankTransactionId?: string; reason?: string }][] = [
      ['succeeded', { bankTransactionId: 'BTX-1' }],
      ['succeeded', {}],
      ['declined', { reason: 'insufficient_funds' }],
      ['declined', { reason: 'customer_denied' }],
      ['expired', {}],
      ['failed', { reason: 'test_clock_deleted' }],
    ];
    for (const b of [plain, run, lastRun])
      for (const [status, o] of outcomes) {
        const expected = billingResponseEvent(b, status, { bankTransactionId: o.bankTransactionId ?? null, reason: o.reason });
        expect(BILL_EVENT_DERIVERS['billing.response']!(image(answered(b, status, o)), undefined), `${b.runSeq} ${status}`).toEqual({
          to: 'mer_1',
          data: expected,
        });
      }
  });

  it('derives nothing from an item that is not a billing, nor an answer from a pending one', () => {
    const b = buildBillItem(base);
    expect(BILL_EVENT_DERIVERS['billing.response']!(image(b), undefined)).toBeUndefined();
    expect(BILL_EVENT_DERIVERS['billing.request']!({ ...image(b), pk: 'REFUND#ref_1' }, { clientRef: 'x' })).toBeUndefined();
  });
});
