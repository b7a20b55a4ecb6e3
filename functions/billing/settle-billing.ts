/**
 * A billing leaves `pending` exactly once (docs/billing-design.md "Bank response / expiry"):
 *
 *   succeeded  (bank approve_once / approve_recurring): the ledger capture
 *              (`captureItems`: the entry that is its settlement line, the settlement batch
 *              shard, the bank's day counter, after one
 *              read of the settlement day's round); the amount stays counted against the limits
 *   declined   (bank deny / suspended), expired (approval window over), failed:
 *              the reservation is released from the counters it was made under
 *
 * in ONE transaction with the billing's status change (conditioned on `status = pending`;
 * an approval also on `expiresAt` not passed; the expiry worker also on its lease), the
 * outcome hooks' items and `billing.response` to the merchant (+ its provider). Two
 * concurrent answers, or an answer racing the expiry, cannot both win: the loser's
 * transaction is cancelled and it reads the winner's result.
 */
import { settlementDate } from '../domain/business-days';
import { commit } from '../events/outbox';
import { logger } from '../platform/log';
import { billKey, type BillItem } from '../bills/types';
import { CAPTURE_DAY_ITEMS, captureItems, readSettlementDay } from '../ledger/store';
import { cancellationCodes, checkRider, getItem, isTransactionCancelled, table, type Rider, type TransactItem } from '../platform/table';
import { billingResponseEvent, type FinalStatus } from './bill-item';
import { consentRelease, limitReleaseItems } from './create-billing';
import { billingOutcomeReason, type BillingOutcome } from '../bills/outcome';
import { outcomeHookItems, runAfterSettledHooks } from './outcomes';
import { conflictBackoff } from '../platform/retry';

export type SettleResult =
  | { ok: true; bill: BillItem }
  /** The billing changed meanwhile (answered, expired) or the lease is not ours: `current` is its state now. */
  | { ok: false; reason: 'changed'; current: BillItem | undefined }
  /** Contention outlasted the bounded retries; nothing was written. */
  | { ok: false; reason: 'busy' };

export const SETTLE_MAX_ATTEMPTS = 10;

function billUpdate(
  bill: BillItem,
  outcome: BillingOutcome,
  at: Date,
  leasedSk: string | undefined,
): { item: TransactItem; next: BillItem } {
  const nowIso = at.toISOString();
  const status: FinalStatus = outcome.status;
  const set: Record<string, unknown> = { '#status': status, updatedAt: nowIso, answeredAt: nowIso };
  const reason = billingOutcomeReason(outcome);
  if (reason) set.reason = reason;
  if ('action' in outcome) set.bankAction = outcome.action;
  if ('bankTransactionId' in outcome && outcome.bankTransactionId !== undefined) set.bankTransactionId = outcome.bankTransactionId;
  if (status === 'succeeded') {
    set.settlementDate = settlementDate(at).date;
    set.entryInLine = true; // captureItems' entry is its settlement line (ledger/store.ts captureEntryKey)
  }

  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':pending': 'pending' };
  const assignments = Object.entries(set).map(([k, v], i) => {
    values[`:v${i}`] = v;
    if (!k.startsWith('#')) {
      names[`#a${i}`] = k;
      return `#a${i} = :v${i}`;
    }
    return `${k} = :v${i}`;
  });
  let condition = '#status = :pending';
  if (status === 'succeeded') {
    condition += ' AND (attribute_not_exists(expiresAt) OR expiresAt > :now)';
    values[':now'] = nowIso;
  }
  if (leasedSk !== undefined) {
    condition += ' AND dueSk = :leased';
    values[':leased'] = leasedSk;
  }
  const next = { ...bill } as BillItem;
  for (const [k, v] of Object.entries(set)) (next as Record<string, unknown>)[k === '#status' ? 'status' : k] = v;
  delete next.duePk;
  delete next.dueSk;
  return {
    next,
    item: {
      Update: {
        TableName: table(),
        Key: billKey(bill.billingRequestId),
        UpdateExpression: `SET ${assignments.join(', ')} REMOVE duePk, dueSk`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

/**
 * Move `bill` (as read, status pending) to the outcome's status at `at`. With `leasedSk`
 * (the expiry worker) only while the tick's claim on the item holds. With `rider` (a keyed
 * bank answer's idempotency record) its items are in the same transaction: RiderRefused when
 * their condition fails.
 */
export async function settleBilling(
  bill: BillItem,
  outcome: BillingOutcome,
  at: Date,
  opts: { leasedSk?: string; rider?: Rider<BillItem> } = {},
): Promise<SettleResult> {
  // A reservation made before release 3 on a pair not billed since is on the month/week items.
  let legacyRelease = false;
  for (let attempt = 1; ; attempt++) {
    if (bill.status !== 'pending') return { ok: false, reason: 'changed', current: bill };
    const { item, next } = billUpdate(bill, outcome, at, opts.leasedSk);
    const release = outcome.status === 'succeeded' ? [] : limitReleaseItems(bill, legacyRelease);
    const money: TransactItem[] =
      outcome.status === 'succeeded'
        ? captureItems(bill, at, await readSettlementDay(bill.merchantId, at))
        : [...release, ...[consentRelease(bill)].filter((x): x is TransactItem => x !== undefined)];
    const hookItems = await outcomeHookItems(bill, outcome, at);
    const data = billingResponseEvent(bill, outcome.status, {
      bankTransactionId: 'bankTransactionId' in outcome ? outcome.bankTransactionId : null,
      reason: billingOutcomeReason(outcome),
    });
    const own = [item, ...money, ...hookItems];
    const riderItems = opts.rider ? await opts.rider.items(next) : [];
    try {
      await commit([...own, ...riderItems], [{ type: 'billing.response', to: bill.merchantId, data }], {
        recordOn: 0,
        carry: { on: 0 },
      });
      opts.rider?.committed();
      await runAfterSettledHooks(next, outcome, at);
      return { ok: true, bill: next };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      const codes = cancellationCodes(e);
      if (codes[0] === 'ConditionalCheckFailed') {
        const current = await getItem<BillItem>(billKey(bill.billingRequestId));
        return { ok: false, reason: 'changed', current };
      }
      checkRider(e, own.length, riderItems.length);
      if (!legacyRelease && release.length === 1 && codes[1] === 'ConditionalCheckFailed') {
        legacyRelease = true; // the pair's counter item does not count yet: release from the month/week items
        continue;
      }
      // The settlement day settled a round after our read of it: read it again (a capture never fails because of settlement).
      if (
        outcome.status === 'succeeded' &&
        CAPTURE_DAY_ITEMS.some((i) => codes[1 + i] === 'ConditionalCheckFailed') &&
        attempt < SETTLE_MAX_ATTEMPTS
      )
        continue;
      if (!codes.some((c) => c === 'TransactionConflict' || c === 'ThrottlingError')) throw e;
      if (attempt >= SETTLE_MAX_ATTEMPTS) {
        logger.warn('billing settle contention: giving up', { billingRequestId: bill.billingRequestId, attempts: attempt });
        return { ok: false, reason: 'busy' };
      }
      await conflictBackoff(attempt, { base: 15, cap: 500 });
      const current = await getItem<BillItem>(billKey(bill.billingRequestId));
      if (!current) return { ok: false, reason: 'changed', current };
      bill = current;
    }
  }
}

/** Whether a pending billing's approval window is over at `at`. */
export const isPastExpiry = (bill: Pick<BillItem, 'requiresApproval' | 'expiresAt'>, at: Date): boolean =>
  bill.requiresApproval && bill.expiresAt !== undefined && Date.parse(bill.expiresAt) <= at.getTime();

/**
 * Expire a pending approval whose window is over (the expiry worker with its lease; the
 * bank-response handler and the sandbox route without). Returns the settle result; a
 * billing that is no longer pending is left alone.
 */
export async function expireBilling(bill: BillItem, at: Date, opts: { leasedSk?: string } = {}): Promise<SettleResult> {
  return settleBilling(bill, { status: 'expired' }, at, opts);
}
