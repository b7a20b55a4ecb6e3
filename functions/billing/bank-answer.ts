/**
 * The bank's answer to one billing request (`POST /v1/billing/bank-response` and each
 * element of `POST /v1/billing/bank-responses`, DESIGN 6.5, 8.9): the one place it is
 * written. approve_once / approve_recurring -> `succeeded` with the ledger capture; deny /
 * suspended -> `declined` with the reservation released; each with `billing.response` to
 * the merchant and its provider, in one transaction conditioned on `pending`. Answered
 * already -> 409; past its approval window -> expired now (if the tick has not done it yet)
 * and 409. Another bank's (or an unknown) request -> 404. Refusals are thrown as AppError.
 */
import * as z from 'zod';
import { safeText } from '../http/schemas';
import { conflict, notFound, SANDBOX_MSG } from '../platform/errors';
import { isBillingRequestIdShaped } from './bill-item';
import { BILLING_MSG } from './messages';
import { BANK_DECLINE_REASONS, type BillingOutcome } from '../bills/outcome';
import { expireBilling, isPastExpiry, settleBilling } from './settle-billing';
import { billKey, type BillItem } from '../bills/types';
import { getItem, type Rider } from '../platform/table';
import { clockNow, withTestClock } from '../platform/clock';
import { clockContextOf, TEST_CLOCK_DELETED } from '../platform/test-clock-item';

const ACTIONS = ['approve_once', 'approve_recurring', 'deny', 'suspended'] as const;

/** The body of one answer. */
export const bankResponseSchema = z
  .strictObject({
    billingRequestId: z.string().min(1).max(200),
    action: z.enum(ACTIONS),
    /** The bank's own transaction id: required when paying, optional on a refusal. */
    bankTransactionId: safeText(255).optional(),
    /**
     * With `deny` only: the BANK declined, not the customer (DESIGN 8.6: a recurring run is
     * then retried by the merchant's policy; a customer's deny or suspension never is).
     */
    declineReason: z.enum(BANK_DECLINE_REASONS).optional(),
  })
  .refine((b) => b.bankTransactionId !== undefined || b.action === 'deny' || b.action === 'suspended', {
    path: ['bankTransactionId'],
    message: 'is required when the action approves the billing',
  })
  .refine((b) => b.declineReason === undefined || b.action === 'deny', { path: ['declineReason'], message: 'is only for action deny' });

export type BankResponse = z.output<typeof bankResponseSchema>;

export interface BankAnswered {
  billingRequestId: string;
  reference: string;
  status: BillItem['status'];
}

/** Bounded: each round means another writer changed the billing; the next read decides. */
const MAX_ROUNDS = 4;

/**
 * Applies bank `bankId`'s answer; throws the refusal (404, 409) as the single route answers it.
 * `rider` (the single route's idempotency record) commits with the answer's transaction.
 */
export async function answerBilling(bankId: string, body: BankResponse, rider?: Rider<BankAnswered>): Promise<BankAnswered> {
  if (!isBillingRequestIdShaped(body.billingRequestId)) throw notFound(BILLING_MSG.requestNotFound);
  const bill = await getItem<BillItem>(billKey(body.billingRequestId));
  if (!bill || bill.bankId !== bankId) throw notFound(BILLING_MSG.requestNotFound);
  // A billing made on a sandbox test clock is answered at the clock's time (DESIGN 8.7); once
  // the clock is deleted nothing of it moves money any more (DESIGN 9.2): the billing fails.
  if (!bill.testClock) return answer(bill, body, rider);
  const clock = await clockContextOf(bill.testClock);
  if (!clock) return refuseForDeletedClock(bill);
  return withTestClock(clock, () => answer(bill, body, rider));
}

/**
 * The bank answers a billing of a deleted test clock (one made while the clock was being
 * deleted, or answered after): a pending one fails (`test_clock_deleted`), and the answer is
 * refused as for any billing that is no longer pending.
 */
async function refuseForDeletedClock(bill: BillItem): Promise<never> {
  let current: BillItem | undefined = bill;
  if (bill.status === 'pending') {
    const r = await settleBilling(bill, { status: 'failed', reason: TEST_CLOCK_DELETED }, clockNow());
    if (!r.ok && r.reason === 'busy') throw conflict(BILLING_MSG.settleBusy);
    current = r.ok ? r.bill : r.current;
  }
  if (current?.status === 'failed' && current.reason === TEST_CLOCK_DELETED) throw conflict(SANDBOX_MSG.billingClockDeleted);
  if (current?.status === 'expired') throw conflict(BILLING_MSG.expired);
  throw conflict(BILLING_MSG.alreadyAnswered);
}

const answered = (bill: BillItem): BankAnswered => ({
  billingRequestId: bill.billingRequestId,
  reference: bill.reference,
  status: bill.status,
});

async function answer(bill: BillItem, body: BankResponse, rider?: Rider<BankAnswered>): Promise<BankAnswered> {
  const outcome: BillingOutcome =
    body.action === 'approve_once' || body.action === 'approve_recurring'
      ? { status: 'succeeded', action: body.action, bankTransactionId: body.bankTransactionId! }
      : {
          status: 'declined',
          action: body.action,
          ...(body.bankTransactionId ? { bankTransactionId: body.bankTransactionId } : {}),
          ...(body.declineReason ? { declineReason: body.declineReason } : {}),
        };

  for (let round = 1; round <= MAX_ROUNDS; round++) {
    if (bill.status === 'expired') throw conflict(BILLING_MSG.expired);
    if (bill.status !== 'pending') throw conflict(BILLING_MSG.alreadyAnswered);
    const now = clockNow();
    if (isPastExpiry(bill, now)) {
      // The window is over but the tick has not expired it yet: expire it now, then refuse.
      const r = await expireBilling(bill, now);
      if (r.ok) throw conflict(BILLING_MSG.expired);
      if (r.reason === 'busy') break;
      if (!r.current) throw notFound(BILLING_MSG.requestNotFound);
      bill = r.current;
      continue;
    }
    const r = await settleBilling(bill, outcome, now, {
      ...(rider ? { rider: { items: (next: BillItem) => rider.items(answered(next)), committed: () => rider.committed() } } : {}),
    });
    if (r.ok) return answered(r.bill);
    if (r.reason === 'busy') break;
    if (!r.current) throw notFound(BILLING_MSG.requestNotFound);
    bill = r.current;
  }
  throw conflict(BILLING_MSG.settleBusy);
}
