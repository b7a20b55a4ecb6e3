/**
 * THE per-customer billing core (docs/billing-design.md "Bill"): bill (type `agreement`),
 * one-time pay (`one_time`) and recurring runs (`recurring`) all create billings here.
 *
 * One billing = ONE DynamoDB transaction (through the outbox):
 *   0  the pair's decision: ConditionCheck on the version that was checked (or on its
 *      absence); an Update instead when an agreement or recurring billing counts itself in
 *      the consent counters (maxPayments / yearly set) or stamps an hour-old `lastUsed`
 *   1  month counter  LIM#<decisionId>/M#<yyyy-mm>  ADD amount (month + day), limit conditions
 *   2  week counter   LIM#<decisionId>/W#<yyyy-Www> ADD amount, limit condition
 *   3  the billing request (Put, attribute_not_exists)
 *   +  `billing.request` to the customer's bank (event + deliveries)
 *
 * A failed limit condition (items 1, 2) is the 403; a changed decision (item 0) means the
 * decision is read again and the refusal rules are applied again; a TransactionConflict
 * (concurrent billings of one pair) is retried with jittered backoff. Whatever the
 * concurrency, the counters never pass a limit, and contention never becomes a 500: after
 * the bounded retries the element is `busy` (409, nothing written, safe to retry).
 */
import { clockNow } from '../platform/clock';
import { billingRefusalFor, billingRequiresApproval } from '../domain/decisions';
import type { TrustState } from '../domain/trust';
import { limitConditions, type CounterUpdate } from '../domain/limits';
import { periodKeys } from '../domain/lagos-time';
import { consentRefusal, countsConsent, lagosYear, PAYMENTS_USED, usageOf, yearAttribute } from '../domain/consent';
import { config } from '../config';
import { commit } from '../events/outbox';
import { sandboxBankDue } from '../events/sandbox-bank';
import { logger } from '../platform/log';
import { metric } from '../platform/metrics';
import type { BillItem, BillingType } from '../bills/types';
import { billKey, billPeriods } from '../bills/types';
import { decisionId as pairDecisionId, decisionKey, termsOf, type DecisionItem } from '../decisions/views';
import { cancellationCodes, getItem, isTransactionCancelled, table, type TransactItem } from '../platform/table';
import { BILLING_REQUEST_PREFIX, billingRequestEvent, billingRequestIdFor, buildBillItem } from './bill-item';
import { conflictBackoff } from '../platform/retry';
import type { BillingCustomer, BillingMerchant } from '../bills/reads';

export type BillingRefusal = 'merchant_blocked' | 'not_approved' | 'limits' | 'not_valid' | 'no_payments_left' | 'busy';

export interface CreateBillingInput {
  merchant: BillingMerchant;
  customer: BillingCustomer;
  /**
   * The pair's decision as just read (strongly consistent), or undefined when the pair has
   * none. Retries read it again.
   */
  decision: DecisionItem | undefined;
  /**
   * The merchant's trust state as read for THIS request (never cached; DESIGN 8.1): an
   * approve_recurring decision bills without approval only while the merchant passes the
   * approve_recurring rule. Omitted (one-time pay) = not passing.
   */
  trust?: TrustState;
  /** Minor units. */
  amount: number;
  currency: string;
  description: string;
  type: BillingType;
  scheduleId?: string;
  runSeq?: number;
  /** A recurring run's retry if it fails (see BillItem.runRetryAt). */
  runRetryAt?: string | null;
  /** Fixed "now" (workers pass the tick's time); default: the clock, read per attempt. */
  now?: Date;
  /**
   * Makes the billing request id deterministic, so a re-execution finds the billing the
   * first execution created instead of creating another: Idempotency-Key retries
   * (`idSeedFor`), and recurring runs (e.g. `recurring|<scheduleId>|<runSeq>`, with
   * `idSeedWindowMs: Infinity`).
   */
  idSeed?: string;
  /** How long an existing billing with the seed's id counts as "this request's" (default 24 h, the Idempotency-Key window). */
  idSeedWindowMs?: number;
  /**
   * Items committed in the SAME transaction, after the billing's own four (indexes 4, 5, ...
   * of `cancellationCodes`), e.g. the recurring run claim (recurring/run-store.ts). When one of
   * their conditions fails, createBilling throws the TransactionCanceledException for the
   * caller to read (nothing was written); a TransactionConflict on them is retried like any.
   */
  extraItems?: TransactItem[];
}

export type CreateBillingResult =
  | { ok: true; bill: BillItem; attempts: number; existing?: boolean }
  | { ok: false; refusal: BillingRefusal; attempts: number };

/** Attempts before a contended billing gives up with `busy`. */
export const MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 15;
const BACKOFF_CAP_MS = 400;

/** A deterministic id finds its earlier billing only within the Idempotency-Key window (24 h). */
const SEED_WINDOW_MS = 24 * 3600 * 1000;

const ITEM_DECISION = 0;
const ITEM_MONTH = 1;
const ITEM_WEEK = 2;
const ITEM_BILL = 3;

/** `lastUsed` on the decision moves at most once per this interval (docs/decisions/billing.md). */
export const LAST_USED_GRANULARITY_MS = 3600 * 1000;

/** `lastUsed` is unset or at least LAST_USED_GRANULARITY_MS away from `now` (either way: test clocks). */
const lastUsedStale = (d: DecisionItem, now: Date): boolean =>
  !d.lastUsed || Math.abs(now.getTime() - Date.parse(d.lastUsed)) >= LAST_USED_GRANULARITY_MS;

/**
 * The decision's item in a billing's transaction. Always conditioned on the version that was
 * checked (the refusal rules were applied to exactly that version: approved, not blocked,
 * valid). A `ConditionCheck` (2 WRU, no GSI write) unless the billing must write the decision:
 * an agreement or recurring billing counts itself in the consent counters when the decision
 * has a consent term (conditioned on maxPayments and the yearly limit, so parallel billings
 * can never exceed them), and stamps `lastUsed` when it is unset or an hour old.
 */
function decisionItem(type: BillingType, id: string, d: DecisionItem | undefined, nowIso: string, amount: number, now: Date): TransactItem {
  const Key = decisionKey(id);
  if (!d) return { ConditionCheck: { TableName: table(), Key, ConditionExpression: 'attribute_not_exists(pk)' } };
  const check: TransactItem = {
    ConditionCheck: {
      TableName: table(),
      Key,
      ConditionExpression: 'attribute_exists(pk) AND version = :v',
      ExpressionAttributeValues: { ':v': d.version },
    },
  };
  if (type === 'one_time') return check;
  const counts = countsConsent(d);
  const stamp = lastUsedStale(d, now);
  if (!counts && !stamp) return check;
  const conditions = ['attribute_exists(pk) AND version = :v'];
  const values: Record<string, unknown> = { ':v': d.version };
  const names: Record<string, string> = {};
  const set: string[] = [];
  if (stamp) {
    set.push('lastUsed = :now');
    values[':now'] = nowIso;
  }
  let add = '';
  if (counts) {
    add = ' ADD #pay :one, #yr :amt';
    Object.assign(values, { ':one': 1, ':amt': amount });
    Object.assign(names, { '#pay': PAYMENTS_USED, '#yr': yearAttribute(lagosYear(now)) });
    if (d.maxPayments != null) {
      conditions.push('(attribute_not_exists(#pay) OR #pay < :maxPay)');
      values[':maxPay'] = d.maxPayments;
    }
    const yearly = d.spendingLimits.yearly;
    if (yearly != null) {
      conditions.push('(attribute_not_exists(#yr) OR #yr <= :yrMax)');
      values[':yrMax'] = yearly - amount; // >= 0: consentRefusal refused a larger amount before
    }
  }
  return {
    Update: {
      TableName: table(),
      Key,
      UpdateExpression: `${set.length ? `SET ${set.join(', ')}` : ''}${add}`.trim(),
      ConditionExpression: conditions.join(' AND '),
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The release of a billing's consent counters (declined, expired, failed), in the same
 * transaction as its status change; undefined when the billing counted none (one-time pays,
 * billings from before the counters).
 */
export function consentRelease(
  bill: Pick<BillItem, 'decisionId' | 'amount' | 'periods' | 'createdAt' | 'consentCounted'>,
): TransactItem | undefined {
  if (!bill.consentCounted) return undefined;
  return {
    Update: {
      TableName: table(),
      Key: decisionKey(bill.decisionId),
      UpdateExpression: 'ADD #pay :minusOne, #yr :minusAmt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#pay': PAYMENTS_USED, '#yr': yearAttribute(billPeriods(bill).month.slice(0, 4)) },
      ExpressionAttributeValues: { ':minusOne': -1, ':minusAmt': -bill.amount },
    },
  };
}

/** A counter update of domain/limits.ts as a transaction item. */
export const counterItem = (u: CounterUpdate): TransactItem => ({ Update: { TableName: table(), ...u } });

const CONTENTION = { base: BACKOFF_BASE_MS, cap: BACKOFF_CAP_MS };

const RETRYABLE_ERRORS = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'TransactionInProgressException',
  'RequestLimitExceeded',
]);

export async function createBilling(input: CreateBillingInput): Promise<CreateBillingResult> {
  const result = await attemptBilling(input);
  if (result.ok && !result.existing) metric('BillingRequests', 1, { name: 'type', value: input.type });
  else if (!result.ok) metric('Refusals', 1, { name: 'code', value: result.refusal });
  return result;
}

async function attemptBilling(input: CreateBillingInput): Promise<CreateBillingResult> {
  const { merchant, customer, amount, type } = input;
  const decId = pairDecisionId(merchant.id, customer.id);
  let billingRequestId = billingRequestIdFor(input.idSeed);
  let decision = input.decision;
  if (decision && (decision.id !== decId || decision.merchantId !== merchant.id || decision.customerId !== customer.id)) {
    throw new Error('createBilling: decision does not belong to the (merchant, customer) pair');
  }

  for (let attempt = 1; ; attempt++) {
    const refusal = billingRefusalFor(type, decision);
    if (refusal) return { ok: false, refusal, attempts: attempt };
    const limits = decision?.spendingLimits ?? {};

    const now = input.now ?? clockNow();
    const nowIso = now.toISOString();
    // Consent terms (DESIGN 8.5) bind the agreement's billings, not a one-time pay (rule 3).
    const bound = type !== 'one_time' && decision !== undefined;
    if (bound) {
      const consent = consentRefusal(termsOf(decision!), decision!.spendingLimits.yearly, amount, usageOf(decision, now), now);
      if (consent) return { ok: false, refusal: consent, attempts: attempt };
    }
    // Counted in the consent counters only when a term needs them (countsConsent).
    const counted = bound && countsConsent(decision!);
    const requiresApproval = billingRequiresApproval(type, decision, input.trust);
    const periods = periodKeys(now);
    const reservation = limitConditions(decId, limits, amount, periods);
    if (!reservation.ok) return { ok: false, refusal: 'limits', attempts: attempt };
    const bill = buildBillItem({
      billingRequestId,
      type,
      merchant,
      customer,
      decisionId: decId,
      amount,
      currency: input.currency,
      description: input.description,
      requiresApproval,
      expiresAt: requiresApproval ? new Date(now.getTime() + config.approvalWindowSeconds() * 1000).toISOString() : undefined,
      periods,
      scheduleId: input.scheduleId,
      runSeq: input.runSeq,
      runRetryAt: input.runRetryAt,
      consentCounted: counted,
      createdAt: nowIso,
    });
    const items: TransactItem[] = [
      decisionItem(type, decId, decision, nowIso, amount, now),
      counterItem(reservation.updates.month),
      counterItem(reservation.updates.week),
      { Put: { TableName: table(), Item: bill, ConditionExpression: 'attribute_not_exists(pk)' } },
      ...(input.extraItems ?? []),
    ];

    try {
      await commit(items, [{ type: 'billing.request', to: customer.bankId, data: billingRequestEvent(bill, customer.clientRef) }], {
        eventDue: sandboxBankDue,
      });
      return { ok: true, bill, attempts: attempt };
    } catch (e) {
      const name = (e as { name?: string })?.name ?? '';
      if (!isTransactionCancelled(e)) {
        if (RETRYABLE_ERRORS.has(name) && attempt < MAX_ATTEMPTS) {
          await conflictBackoff(attempt, CONTENTION);
          continue;
        }
        throw e;
      }
      const codes = cancellationCodes(e);
      const failed = (i: number) => codes[i] === 'ConditionalCheckFailed';
      if (failed(ITEM_BILL)) {
        // The id exists: only a deterministic id (idSeed) repeats. The earlier execution of
        // this same request committed: answer with what it created.
        const existing = await getItem<BillItem>(billKey(billingRequestId));
        const fresh = existing && Date.now() - Date.parse(existing.createdAt) < (input.idSeedWindowMs ?? SEED_WINDOW_MS);
        if (existing && fresh && existing.merchantId === merchant.id && existing.customerId === customer.id && existing.amount === amount) {
          return { ok: true, bill: existing, attempts: attempt, existing: true };
        }
        if (!input.idSeed || !billingRequestId.startsWith(`${BILLING_REQUEST_PREFIX}_k`) || (existing && fresh)) {
          // A random id collided (practically impossible), or the seed names another billing
          // that is still "this request's": never bill again under it.
          throw new Error('createBilling: billing request id collision');
        }
        // The seed's billing is older than the window (an Idempotency-Key reused after its
        // 24 h: a new request by contract): a random id.
        billingRequestId = billingRequestIdFor();
        continue;
      }
      if (!failed(ITEM_DECISION) && (failed(ITEM_MONTH) || failed(ITEM_WEEK))) {
        return { ok: false, refusal: 'limits', attempts: attempt };
      }
      const retryable =
        failed(ITEM_DECISION) || codes.some((c) => c === 'TransactionConflict' || RETRYABLE_ERRORS.has(c) || c === 'ThrottlingError');
      if (!retryable) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        logger.warn('billing contention: giving up', { merchantId: merchant.id, decisionId: decId, attempts: attempt });
        return { ok: false, refusal: 'busy', attempts: attempt };
      }
      if (!failed(ITEM_DECISION)) await conflictBackoff(attempt, CONTENTION);
      decision = await getItem<DecisionItem>(decisionKey(decId));
    }
  }
}
