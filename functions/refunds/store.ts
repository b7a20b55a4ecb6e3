/**
 * Refunds (docs/billing-design.md "Refunds", DESIGN 6.5, 6.9).
 *
 * Initiate (one transaction through the outbox):
 *   0  the transaction (bill): the claim of bills/claims.ts (THE refundable/disputable rule,
 *      shared with disputes) — concurrent refunds and disputes can never take more than the
 *      amount, whatever the interleaving — and the refund's id added to its `refundIds`
 *   1  the refund item (Put), status `pending`; in sandbox with the due attributes of
 *      `refund.complete` at createdAt + REFUND_AUTO_COMPLETE_SECONDS
 *   +  `refund.requested` to the customer's bank (it executes the refund)
 *
 * Status: pending → processing (the bank is executing it) → completed | failed. Each change
 * emits `refund.updated` to the merchant (+ provider).
 *
 * Complete (processing → completed, one transaction):
 *   0  refund: status completed (conditioned on processing, and the tick's lease if any)
 *   1  bill: ADD refundedAmount (the transaction reads `partially_refunded` / `refunded`)
 *   2  ledger entry: debit `merchant_unsettled` (funds not settled yet) or
 *      `merchant_settled`, credit `bank:<bankId>`; deterministic key per refund
 *   3  the day counter (refunded)
 *   4  settled funds: a balance shard ADD settled −amt;
 *      unsettled funds: the bill's settlement batch shard: ADD amount −amt (the unsettled
 *      balance is the pending batches' sum), conditioned on
 *      the batch being pending with at least amt left and the capture's round not settled
 *      yet; when that fails the funds are settled, and the transaction is retried on the
 *      settled path. Its line names the capture's round (the settlement that pays the rest).
 *
 * Fail (pending | processing → failed): bill ADD refundReserved −amt (released).
 */
import { clockNow } from '../platform/clock';
import { config } from '../config';
import { refundExpectedBy } from '../domain/business-days';
import { newId, sha256Hex } from '../domain/ids';
import { toMajor } from '../domain/money';
import { commit } from '../events/outbox';
import { logger } from '../platform/log';
import { CARRIED_EVENT } from '../platform/definitions';
import { dueAttributes } from '../platform/due';
import { billKey, type BillItem } from '../bills/types';
import { dayCounterAdd } from '../ledger/day-counters';
import { claimableOf, claimUpdate } from '../bills/claims';
import {
  accounts,
  settledAdd,
  randomShard,
  captureEntryKey,
  entryPut,
  getLedgerEntry,
  ledgerEntryId,
  ledgerEntryKey,
  linePut,
  batchKeyOf,
} from '../ledger/store';
import { lagosDate } from '../domain/lagos-time';
import { findBillByReference } from '../transactions/store';
import { cancellationCodes, checkRider, getItem, isTransactionCancelled, table, type Rider, type TransactItem } from '../platform/table';
import { conflictBackoff } from '../platform/retry';
import {
  getRefund,
  MIN_REFUND_MINOR,
  REFUND_COMPLETE_KIND,
  REFUND_REQUESTED,
  REFUND_UPDATED,
  refundKey,
  refundView,
  type RefundItem,
} from './views';

const updatedEvent = (r: RefundItem) => ({
  type: REFUND_UPDATED,
  to: r.merchantId,
  data: { ...refundView(r), billingRequestId: r.billingRequestId, entityId: r.merchantId },
});

const pause = (attempt: number) => conflictBackoff(attempt + 1, { base: 10, cap: 300 });
const isContention = (codes: string[]) => codes.some((c) => c === 'TransactionConflict' || c === 'ThrottlingError');

// ---------------------------------------------------------------------------------------
// Initiate

export type InitiateResult = { ok: true; refund: RefundItem } | { ok: false; reason: 'not_found' | 'not_refundable' | 'exceeds' | 'busy' };

/** Attempts before a contended refund gives up (`busy`, nothing written). 20 concurrent refunds of one transaction fit. */
export const INITIATE_MAX_ATTEMPTS = 40;

/** The refund this id names, when it is of this transaction (a retried request's first attempt). */
async function alreadyMade(refundId: string, bill: Pick<BillItem, 'billingRequestId' | 'merchantId'>): Promise<RefundItem | undefined> {
  const r = await getItem<RefundItem>(refundKey(refundId), true);
  return r && r.billingRequestId === bill.billingRequestId && r.merchantId === bill.merchantId ? r : undefined;
}

export async function initiateRefund(input: {
  merchantId: string;
  reference: string;
  /** Minor units; default: the whole refundable remainder. */
  amount?: number;
  reason?: string;
  now?: () => Date;
  /**
   * The request's idempotency record key (endpoint `requestKey`): the refund's id is derived
   * from it, so a retry after an answer lost past the commit (a timeout, a 5xx that released
   * the key) returns the refund the first attempt made instead of refusing the amount it
   * already reserved.
   */
  requestKey?: string;
  /** The keyed request's idempotency record (with its 201), committed in the refund's transaction: RiderRefused when it exists. */
  rider?: Rider<RefundItem>;
}): Promise<InitiateResult> {
  const found = await findBillByReference(input.reference);
  if (!found || found.merchantId !== input.merchantId) return { ok: false, reason: 'not_found' };
  const refundId = input.requestKey ? `rfd_k${sha256Hex(`refund:${input.requestKey}`).slice(0, 22)}` : newId('rfd');
  const made = input.requestKey ? await alreadyMade(refundId, found) : undefined;
  if (made) return { ok: true, refund: made };
  let bill: BillItem = found;
  for (let attempt = 1; ; attempt++) {
    if (bill.status !== 'succeeded') return { ok: false, reason: 'not_refundable' };
    const remaining = claimableOf(bill);
    const amount = input.amount ?? remaining;
    if (amount < MIN_REFUND_MINOR || amount > remaining) return { ok: false, reason: 'exceeds' };

    const now = input.now?.() ?? clockNow();
    const nowIso = now.toISOString();
    const refund: RefundItem = {
      ...refundKey(refundId),
      refundId,
      reference: bill.reference,
      billingRequestId: bill.billingRequestId,
      merchantId: bill.merchantId,
      ...(bill.providerId ? { providerId: bill.providerId } : {}),
      bankId: bill.bankId,
      customerId: bill.customerId,
      amount,
      currency: bill.currency,
      status: 'pending',
      reason: input.reason ?? null,
      expectedBy: refundExpectedBy(now).toISOString(),
      createdAt: nowIso,
      updatedAt: nowIso,
      gsi2pk: `MREF#${bill.merchantId}`,
      gsi2sk: `${nowIso}#${refundId}`,
      // Sandbox: the simulated bank completes it after a short delay. Live: the bank confirms.
      ...(config.stage() === 'sandbox'
        ? dueAttributes(REFUND_COMPLETE_KIND, refundId, new Date(now.getTime() + config.refundAutoCompleteSeconds() * 1000))
        : {}),
    };
    const items: TransactItem[] = [
      // The refund's id joins the transaction's (`refundIds`): its refunds are read by key on its page.
      claimUpdate(bill, amount, { merchantId: input.merchantId }, { adds: { refundIds: new Set([refundId]) } }),
      { Put: { TableName: table(), Item: refund, ConditionExpression: 'attribute_not_exists(pk)' } },
    ];
    const riderItems = input.rider ? await input.rider.items(refund) : [];
    const requested = {
      type: REFUND_REQUESTED,
      to: bill.bankId,
      data: {
        refundId,
        billingRequestId: bill.billingRequestId,
        reference: bill.reference,
        bankTransactionId: bill.bankTransactionId ?? null,
        customerId: bill.customerId,
        entityId: bill.merchantId,
        merchantName: bill.merchantName,
        amount: toMajor(amount),
        currency: bill.currency,
        reason: refund.reason,
        expectedBy: refund.expectedBy,
        createdAt: nowIso,
      },
    };
    try {
      await commit([...items, ...riderItems], [requested], { recordOn: 1 });
      input.rider?.committed();
      logger.info('refund initiated', { refundId, billingRequestId: bill.billingRequestId });
      return { ok: true, refund };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      checkRider(e, items.length, riderItems.length);
      const codes = cancellationCodes(e);
      // The refund's id exists: this request's first attempt made it (requestKey).
      if (codes[1] === 'ConditionalCheckFailed') {
        const first = await alreadyMade(refundId, bill);
        if (first) return { ok: true, refund: first };
        throw e;
      }
      if (codes[0] !== 'ConditionalCheckFailed' && !isContention(codes)) throw e;
      if (attempt >= INITIATE_MAX_ATTEMPTS) {
        logger.warn('refund contention: giving up', { billingRequestId: bill.billingRequestId, attempts: attempt });
        return { ok: false, reason: 'busy' };
      }
      // Reserved meanwhile (condition) or contended: read the transaction again and decide again.
      if (codes[0] !== 'ConditionalCheckFailed') await pause(attempt);
      const current = await getItem<BillItem>(billKey(bill.billingRequestId));
      if (!current || current.merchantId !== input.merchantId) return { ok: false, reason: 'not_found' };
      bill = current;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Status changes

/** The tick's claim on a refund's due item (the sandbox auto-complete worker). */
export interface RefundLease {
  leasedSk: string;
}

const MAX_ATTEMPTS = 10;

/** pending → processing. Returns the refund as it is afterwards (unchanged when it was not pending). */
export async function markRefundProcessing(
  refundId: string,
  now: Date,
  lease?: RefundLease,
  rider?: Rider<RefundItem>,
): Promise<RefundItem | undefined> {
  const r = await getRefund(refundId);
  if (r?.status !== 'pending') return r;
  const nowIso = now.toISOString();
  const next: RefundItem = { ...r, status: 'processing', processingAt: nowIso, updatedAt: nowIso };
  const values: Record<string, unknown> = { ':processing': 'processing', ':pending': 'pending', ':now': nowIso };
  let condition = '#status = :pending';
  if (lease) {
    condition += ' AND dueSk = :leased';
    values[':leased'] = lease.leasedSk;
  }
  const riderItems = rider ? await rider.items(next) : [];
  try {
    await commit(
      [
        {
          Update: {
            TableName: table(),
            Key: refundKey(refundId),
            UpdateExpression: 'SET #status = :processing, processingAt = :now, updatedAt = :now',
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: values,
          },
        },
        ...riderItems,
      ],
      [updatedEvent(next)],
      { recordOn: 0 },
    );
    rider?.committed();
    return next;
  } catch (e) {
    if (!isTransactionCancelled(e)) throw e;
    if (cancellationCodes(e)[0] !== 'ConditionalCheckFailed') checkRider(e, 1, riderItems.length);
    return getRefund(refundId); // changed meanwhile (or lease lost): the caller looks at the current state
  }
}

/**
 * processing → completed, moving the money (see the header). A pending refund is moved to
 * processing first (the sandbox bank "executes" it at once). Idempotent: a completed or
 * failed refund is returned as it is. With `lease`, only while the tick's claim holds.
 */
export async function completeRefund(
  refundId: string,
  now: Date,
  lease?: RefundLease,
  rider?: Rider<RefundItem>,
): Promise<RefundItem | undefined> {
  let r = await getRefund(refundId);
  if (r?.status === 'pending') r = await markRefundProcessing(refundId, now, lease);
  if (r?.status !== 'processing') return r;
  if (lease && r.dueSk !== lease.leasedSk) return r;

  const bill = await getItem<BillItem>(billKey(r.billingRequestId));
  if (!bill) throw new Error(`refund ${refundId}: billing request missing`);
  const capture = await getLedgerEntry(captureEntryKey(bill));
  if (!capture) throw new Error(`refund ${refundId}: capture entry missing`);

  const nowIso = now.toISOString();
  let fromUnsettled = capture.batchSk !== undefined;
  for (let attempt = 1; ; attempt++) {
    const side = fromUnsettled ? 'unsettled' : 'settled';
    const next: RefundItem = { ...r, status: 'completed', completedAt: nowIso, updatedAt: nowIso, debitedBalance: side };
    delete next.duePk;
    delete next.dueSk;
    const values: Record<string, unknown> = { ':completed': 'completed', ':processing': 'processing', ':now': nowIso, ':side': side };
    let condition = '#status = :processing';
    if (lease) {
      condition += ' AND dueSk = :leased';
      values[':leased'] = lease.leasedSk;
    }
    const entryId = ledgerEntryId('refund', r.refundId);
    const items: TransactItem[] = [
      {
        Update: {
          TableName: table(),
          Key: refundKey(refundId),
          UpdateExpression: 'SET #status = :completed, completedAt = :now, updatedAt = :now, debitedBalance = :side REMOVE duePk, dueSk',
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        },
      },
      {
        Update: {
          TableName: table(),
          Key: billKey(bill.billingRequestId),
          UpdateExpression: `ADD refundedAmount :amt SET updatedAt = :now REMOVE ${CARRIED_EVENT}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':amt': r.amount, ':now': nowIso },
        },
      },
      entryPut({
        ...ledgerEntryKey(bill.merchantId, r.createdAt, entryId),
        entryId,
        kind: 'refund',
        merchantId: bill.merchantId,
        debit: fromUnsettled ? accounts.unsettled(bill.merchantId) : accounts.settled(bill.merchantId),
        credit: accounts.bank(bill.bankId),
        amount: r.amount,
        currency: r.currency,
        reference: r.reference,
        billingRequestId: r.billingRequestId,
        refundId: r.refundId,
        ...(fromUnsettled ? { batchSk: capture.batchSk } : {}),
        postedAt: nowIso,
      }),
      dayCounterAdd(bill, { date: lagosDate(now), shard: randomShard(), refunded: r.amount }),
      // From a pending batch, the batch's ADD below is the unsettled balance's; from the settled balance, a shard's.
      ...(fromUnsettled ? [] : [settledAdd(bill.merchantId, -r.amount)]),
    ];
    const BATCH = items.length;
    if (fromUnsettled) {
      items.push({
        Update: {
          TableName: table(),
          Key: batchKeyOf(bill.merchantId, capture.batchSk!),
          UpdateExpression: 'ADD #amount :neg, refundedAmount :amt SET updatedAt = :now',
          // The capture's round has not settled yet (a shard re-opened by a later capture holds other funds).
          ConditionExpression: `#status = :pending AND #amount >= :amt${capture.stlRound !== undefined ? ' AND settleRound = :before' : ''}`,
          ExpressionAttributeNames: { '#status': 'status', '#amount': 'amount' },
          ExpressionAttributeValues: {
            ':neg': -r.amount,
            ':amt': r.amount,
            ':pending': 'pending',
            ':now': nowIso,
            ...(capture.stlRound !== undefined ? { ':before': capture.stlRound - 1 } : {}),
          },
        },
      });
      // The refund lowers that day's settlement: a refund line beside the capture's line.
      items.push(
        linePut({
          merchantId: bill.merchantId,
          settlementDate: capture.settlementDate!,
          batchSk: capture.batchSk!,
          ts: r.createdAt,
          entryId,
          type: 'refund',
          amount: r.amount,
          reference: r.reference,
          billingRequestId: r.billingRequestId,
          refundId: r.refundId,
          ...(capture.stlRound !== undefined ? { stlRound: capture.stlRound } : {}),
          postedAt: nowIso,
        }),
      );
    }
    const riderItems = rider ? await rider.items(next) : [];
    try {
      await commit([...items, ...riderItems], [updatedEvent(next)], { recordOn: 0 });
      rider?.committed();
      logger.info('refund completed', { refundId, debited: side });
      return next;
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      const codes = cancellationCodes(e);
      if (codes[0] === 'ConditionalCheckFailed') return getRefund(refundId); // completed/failed meanwhile, or lease lost
      checkRider(e, items.length, riderItems.length);
      if (fromUnsettled && codes[BATCH] === 'ConditionalCheckFailed') {
        fromUnsettled = false; // the batch settled: the funds are in the settled balance now
        continue;
      }
      if (!isContention(codes) || attempt >= MAX_ATTEMPTS) throw e;
      await pause(attempt);
      const current = await getRefund(refundId);
      if (current?.status !== 'processing') return current;
      r = current;
    }
  }
}

/** pending | processing → failed: the reservation is released; nothing else moved. */
export async function failRefund(
  refundId: string,
  failureReason: string,
  now: Date,
  rider?: Rider<RefundItem>,
): Promise<RefundItem | undefined> {
  for (let attempt = 1; ; attempt++) {
    const r = await getRefund(refundId);
    if (!r || (r.status !== 'pending' && r.status !== 'processing')) return r;
    const nowIso = now.toISOString();
    const next: RefundItem = { ...r, status: 'failed', failedAt: nowIso, updatedAt: nowIso, failureReason };
    delete next.duePk;
    delete next.dueSk;
    const riderItems = rider ? await rider.items(next) : [];
    try {
      await commit(
        [
          {
            Update: {
              TableName: table(),
              Key: refundKey(refundId),
              UpdateExpression: 'SET #status = :failed, failedAt = :now, updatedAt = :now, failureReason = :why REMOVE duePk, dueSk',
              ConditionExpression: '#status = :seen',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':failed': 'failed', ':now': nowIso, ':why': failureReason, ':seen': r.status },
            },
          },
          {
            Update: {
              TableName: table(),
              Key: billKey(r.billingRequestId),
              UpdateExpression: `ADD refundReserved :neg REMOVE ${CARRIED_EVENT}`,
              ConditionExpression: 'refundReserved >= :amt',
              ExpressionAttributeValues: { ':neg': -r.amount, ':amt': r.amount },
            },
          },
          ...riderItems,
        ],
        [updatedEvent(next)],
        { recordOn: 0 },
      );
      rider?.committed();
      return next;
    } catch (e) {
      if (isTransactionCancelled(e)) checkRider(e, 2, riderItems.length);
      if (!isTransactionCancelled(e) || attempt >= MAX_ATTEMPTS) throw e;
      await pause(attempt);
    }
  }
}
