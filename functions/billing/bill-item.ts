/**
 * The billing request item (= the transaction, `functions/bills/types.ts`): how it is
 * built, indexed and shown in the two billing events (DESIGN 6.7).
 */
import { createHash } from 'node:crypto';
import { newId } from '../domain/ids';
import { periodKeys, type PeriodKeys } from '../domain/lagos-time';
import { toMajor } from '../domain/money';
import { bankTxnKey, billKey, merchantTxnKey, providerTxnKey, type BillItem, type BillingStatus, type BillingType } from '../bills/types';
import { shardedKey } from '../platform/list-page';
import { dueAttributes } from '../platform/due';
import { currentTestClock } from '../platform/clock';
import { isCustomerRefusal } from '../bills/outcome';
import type { EventDerivers } from '../events/outbox';

/** Due kind of an approval that expires (functions/billing/expiry.ts). */
export const EXPIRY_KIND = 'billing.expiry';

/**
 * An approval is put on the due index this long BEFORE its `expiresAt`: the tick's claim
 * and the jobs queue happen ahead of time, the worker waits out the rest and expires it at
 * `expiresAt` (never earlier), so `billing.response` follows `expiresAt` by the commit and
 * the delivery only (DESIGN 6.9 "Expiry timing": one tick period + 1 s locally).
 */
export const EXPIRY_LEAD_MS = 1000;
export const expiryDueAt = (expiresAt: string) => new Date(Date.parse(expiresAt) - EXPIRY_LEAD_MS);

export const BILLING_REQUEST_PREFIX = 'breq';
export const REFERENCE_PREFIX = 'txn';

export const isBillingRequestIdShaped = (id: unknown): id is string =>
  typeof id === 'string' && id.length <= 64 && /^breq_[0-9A-Za-z]+$/.test(id);

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The seed of a run's billing request id: one billing per (schedule, run sequence number). */
export const runSeed = (scheduleId: string, seq: number) => `recurring|${scheduleId}|${seq}`;

/** The billing request id of a schedule's run `seq` (whether or not that run billed). */
export const runBillingRequestId = (scheduleId: string, seq: number) => billingRequestIdFor(runSeed(scheduleId, seq));

/**
 * The billing request id. Random and time-ordered, except under an Idempotency-Key: then it
 * is derived from (API key id, idempotency key, element index), so a retry of a request
 * whose first execution committed but never answered (a timeout, a crash) finds the billing
 * it already created instead of creating a second one.
 */
export function billingRequestIdFor(seed?: string): string {
  if (!seed) return newId(BILLING_REQUEST_PREFIX);
  const digest = createHash('sha256').update(`idpay:breq:v1|${seed}`).digest();
  let n = BigInt(`0x${digest.subarray(0, 16).toString('hex')}`);
  let body = '';
  while (n > 0n) {
    body = B62[Number(n % 62n)]! + body;
    n /= 62n;
  }
  return `${BILLING_REQUEST_PREFIX}_k${body.padStart(22, '0')}`;
}

export interface NewBill {
  billingRequestId: string;
  type: BillingType;
  merchant: { id: string; name: string; providerId?: string };
  customer: { id: string; bankId: string };
  decisionId: string;
  amount: number;
  currency: string;
  description: string;
  requiresApproval: boolean;
  /** ISO; set exactly when requiresApproval. */
  expiresAt?: string;
  /** The periods reserved under: those of `createdAt` (checked; not stored, see `billPeriods`). */
  periods: PeriodKeys;
  scheduleId?: string;
  runSeq?: number;
  runRetryAt?: string | null;
  /** Counted in the decision's consent counters (paymentsUsed, usedY<yyyy>): released with the limits. */
  consentCounted?: boolean;
  createdAt: string;
}

/**
 * A billing's reference: `txn_` + its billing request id's body, so a reference names its
 * billing by key (transactions/store.ts `findBillByReference`) with no alternate-key index
 * entry. Billings made before release 3 have a random reference, found through gsi1 `REF#`.
 */
export const referenceFor = (billingRequestId: string) =>
  `${REFERENCE_PREFIX}_${billingRequestId.slice(BILLING_REQUEST_PREFIX.length + 1)}`;

/** The billing request id a reference of `referenceFor`'s shape names (a candidate: the caller checks the reference). */
export const billingRequestIdOfReference = (reference: string): string | undefined =>
  /^txn_[0-9A-Za-z]{1,58}$/.test(reference) ? `${BILLING_REQUEST_PREFIX}_${reference.slice(REFERENCE_PREFIX.length + 1)}` : undefined;

/**
 * List keys of a transaction (bills/types.ts): the merchant's, the bank's and the provider's
 * lists on keys-only indexes, the bank's and provider's sharded by the billing request id,
 * one shared sort key. Nothing that changes is in an index entry: the answer, a refund or a
 * settlement rewrite no index copy.
 */
export function billIndexAttributes(b: Pick<BillItem, 'merchantId' | 'bankId' | 'providerId' | 'createdAt' | 'billingRequestId'>) {
  return {
    gsi5pk: merchantTxnKey(b.merchantId),
    gsi6pk: shardedKey(bankTxnKey(b.bankId), b.billingRequestId),
    ...(b.providerId ? { gsi7pk: shardedKey(providerTxnKey(b.providerId), b.billingRequestId) } : {}),
    lsk: `${b.createdAt}#${b.billingRequestId}`,
  };
}

/**
 * The billing request item. Kept small (under 1 KB with its answer, so each write is one
 * unit): no attribute a reader can derive (the reservation's periods come from `createdAt`).
 */
export function buildBillItem(n: NewBill): BillItem {
  const reference = referenceFor(n.billingRequestId);
  const bill: BillItem = {
    ...billKey(n.billingRequestId),
    billingRequestId: n.billingRequestId,
    reference,
    type: n.type,
    status: 'pending',
    merchantId: n.merchant.id,
    merchantName: n.merchant.name,
    ...(n.merchant.providerId ? { providerId: n.merchant.providerId } : {}),
    bankId: n.customer.bankId,
    customerId: n.customer.id,
    decisionId: n.decisionId,
    ...(n.scheduleId !== undefined ? { scheduleId: n.scheduleId } : {}),
    ...(n.runSeq !== undefined ? { runSeq: n.runSeq } : {}),
    ...(n.runRetryAt !== undefined ? { runRetryAt: n.runRetryAt } : {}),
    ...testClockOf(),
    amount: n.amount,
    currency: n.currency,
    description: n.description,
    requiresApproval: n.requiresApproval,
    ...(n.expiresAt ? { expiresAt: n.expiresAt } : {}),
    ...(n.consentCounted ? { consentCounted: true } : {}),
    refundedAmount: 0,
    refundReserved: 0,
    createdAt: n.createdAt,
    updatedAt: n.createdAt,
  };
  const derived = periodKeys(new Date(n.createdAt));
  if (derived.day !== n.periods.day || derived.week !== n.periods.week || derived.month !== n.periods.month) {
    throw new Error('buildBillItem: the reserved periods are not those of createdAt');
  }
  Object.assign(bill, billIndexAttributes(bill));
  if (n.requiresApproval && n.expiresAt) Object.assign(bill, dueAttributes(EXPIRY_KIND, n.billingRequestId, expiryDueAt(n.expiresAt)));
  return bill;
}

/** `billing.request` data (to the customer's bank). */
export function billingRequestEvent(b: BillItem, clientRef: string): Record<string, unknown> {
  return {
    billingRequestId: b.billingRequestId,
    reference: b.reference,
    type: b.type,
    customerId: b.customerId,
    clientRef,
    entityId: b.merchantId,
    merchantName: b.merchantName,
    amount: toMajor(b.amount),
    currency: b.currency,
    description: b.description,
    requiresApproval: b.requiresApproval,
    ...(b.requiresApproval ? { expiresAt: b.expiresAt ?? null } : {}),
    ...(b.scheduleId ? { scheduleId: b.scheduleId } : {}),
  };
}

export type FinalStatus = Exclude<BillingStatus, 'pending'>;

/** `billing.response` data (to the merchant and its provider). */
export function billingResponseEvent(
  b: BillItem,
  status: FinalStatus,
  o: { bankTransactionId?: string | null; reason?: string },
): Record<string, unknown> {
  return {
    billingRequestId: b.billingRequestId,
    reference: b.reference,
    entityId: b.merchantId,
    customerId: b.customerId,
    amount: toMajor(b.amount),
    currency: b.currency,
    status,
    customerAction: status === 'succeeded' ? 'approved' : 'declined',
    bankTransactionId: o.bankTransactionId ?? null,
    ...(o.reason ? { reason: o.reason } : {}),
    ...(b.scheduleId ? { scheduleId: b.scheduleId } : {}),
    ...runRetryFields(b, status, o.reason),
  };
}

/**
 * The two events a billing carries on its own item (events/outbox.ts `carry`: its request's
 * and its answer's transactions write no event item), as the stream consumer derives them
 * from the item those transactions wrote: the same receiver and data they passed (checked in
 * test/unit/billing.test.ts). `billing.request`'s `clientRef` is the customer's, not the
 * billing's: the marker's `args` keep it.
 */
export const BILL_EVENT_DERIVERS: EventDerivers = {
  'billing.request': (item, args) => {
    const b = item as unknown as BillItem;
    if (!String(b.pk).startsWith('BILL#')) return undefined;
    return { to: b.bankId, data: billingRequestEvent(b, args?.clientRef as string) };
  },
  'billing.response': (item) => {
    const b = item as unknown as BillItem;
    if (!String(b.pk).startsWith('BILL#') || b.status === 'pending') return undefined;
    return {
      to: b.merchantId,
      data: billingResponseEvent(b, b.status, { bankTransactionId: b.bankTransactionId ?? null, reason: b.reason }),
    };
  },
};

/** Sandbox: the test clock a billing is made on (DESIGN 8.7), when there is one. */
function testClockOf(): { testClock?: string } {
  const testClock = currentTestClock();
  return testClock ? { testClock } : {};
}

/**
 * `willRetry` and, when true, `nextRetryAt` of a recurring run's `billing.response` (DESIGN
 * 8.6): the retry fixed when the run started, unless it succeeded or the customer refused.
 * Nothing for other billings (nor for runs started before retries were recorded).
 */
function runRetryFields(b: BillItem, status: FinalStatus, reason: string | undefined): Record<string, unknown> {
  if (b.runSeq === undefined || b.runRetryAt === undefined) return {};
  const willRetry = status !== 'succeeded' && !isCustomerRefusal(reason) && b.runRetryAt !== null;
  return willRetry ? { willRetry, nextRetryAt: b.runRetryAt } : { willRetry };
}
