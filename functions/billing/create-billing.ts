/**
 * THE per-customer billing core (docs/billing-design.md "Bill"): bill (type `agreement`),
 * one-time pay (`one_time`) and recurring runs (`recurring`) all create billings here.
 *
 * One billing = ONE DynamoDB transaction (through the outbox), after the caller's
 * `extraItems` and `rider` (indexes 0 .. k-1 of `cancellationCodes`):
 *   k    the pair's counter item  LIM#<decisionId>/C  ADD the amount to the day, week and
 *        month under the limits' conditions, `lastUsed`, and the decision's version as a
 *        condition (`decVersion`, which every decision change writes): a changed decision
 *        cancels the billing with no write to, nor ConditionCheck of, the decision item
 *   k+1  the billing request (Put, attribute_not_exists)
 *   k+2  only when needed: the decision, an Update when the billing counts itself in the
 *        consent counters (maxPayments / yearly set), else a ConditionCheck of the version
 *        checked when the counter item does not carry that version yet
 *   +    `billing.request` to the customer's bank (the outbox's event)
 *
 * A failed limit condition is the 403; a changed decision means the decision is read again
 * and the refusal rules are applied again; a TransactionConflict (concurrent billings of one
 * pair) is retried with jittered backoff. Whatever the concurrency, the counters never pass
 * a limit, and contention never becomes a 500: after the bounded retries the element is
 * `busy` (409, nothing written, safe to retry).
 */
import { clockNow } from '../platform/clock';
import { billingRefusalFor, billingRequiresApproval } from '../domain/decisions';
import type { TrustState } from '../domain/trust';
import {
  DECISION_VERSION,
  limitCounterKeys,
  limitRelease,
  pairCounterKey,
  pairCounts,
  pairRelease,
  pairReservation,
  type CounterUpdate,
  type PairCounterUpdate,
} from '../domain/limits';
import { periodKeys, type PeriodKeys } from '../domain/lagos-time';
import { consentRefusal, countsConsent, lagosYear, PAYMENTS_USED, usageOf, yearAttribute } from '../domain/consent';
import { config } from '../config';
import { commit } from '../events/outbox';
import { sandboxBankDue } from '../events/sandbox-bank';
import { logger } from '../platform/log';
import { metric } from '../platform/metrics';
import type { BillItem, BillingType } from '../bills/types';
import { billKey, billPeriods } from '../bills/types';
import { decisionId as pairDecisionId, decisionKey, termsOf, type DecisionItem } from '../decisions/views';
import { unmarshallItem } from '../platform/marshall';
import {
  batchGetByKey,
  cancellationCodes,
  getItem,
  isTransactionCancelled,
  checkRider,
  itemKeyOf,
  table,
  type Item,
  type Rider,
  type TransactItem,
} from '../platform/table';
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
   * The pair's counter item (`LIM#<decisionId>` / `C`) as read with the decision (strongly
   * consistent; null: none), so the billing reads nothing more; undefined: createBilling reads it.
   */
  counter?: Item | null;
  /**
   * Items committed in the SAME transaction, BEFORE the billing's own (indexes 0, 1, ... of
   * `cancellationCodes`), e.g. the recurring run claim (recurring/run-store.ts). When one of
   * their conditions fails, createBilling throws the TransactionCanceledException for the
   * caller to read (nothing was written); a TransactionConflict on them is retried like any.
   */
  extraItems?: TransactItem[];
  /**
   * A keyed bill's or pay's idempotency record (platform/table.ts Rider), built from each
   * attempt's billing and committed in its transaction after `extraItems`: RiderRefused when
   * its condition fails (the key's record exists; nothing was written).
   */
  rider?: Rider<BillItem>;
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

/**
 * The decision's item in a billing's transaction, when it needs one. An agreement or
 * recurring billing counts itself in the consent counters while the decision has a consent
 * term (an Update conditioned on the version checked and on maxPayments and the yearly limit,
 * so parallel billings can never exceed them); otherwise a ConditionCheck of the version
 * checked, only when the pair's counter item does not carry that version (`decVersion`).
 * Undefined: the counter item's condition covers the decision.
 */
function decisionItem(
  type: BillingType,
  id: string,
  d: DecisionItem | undefined,
  amount: number,
  now: Date,
  counterHasVersion: boolean,
): TransactItem | undefined {
  const Key = decisionKey(id);
  const counts = d !== undefined && type !== 'one_time' && countsConsent(d);
  if (!counts) {
    if (d === undefined || counterHasVersion) return undefined;
    return {
      ConditionCheck: {
        TableName: table(),
        Key,
        ConditionExpression: 'attribute_exists(pk) AND version = :v',
        ExpressionAttributeValues: { ':v': d.version },
      },
    };
  }
  const conditions = ['attribute_exists(pk) AND version = :v'];
  const values: Record<string, unknown> = { ':v': d.version, ':one': 1, ':amt': amount };
  const names: Record<string, string> = { '#pay': PAYMENTS_USED, '#yr': yearAttribute(lagosYear(now)) };
  if (d.maxPayments != null) {
    conditions.push('(attribute_not_exists(#pay) OR #pay < :maxPay)');
    values[':maxPay'] = d.maxPayments;
  }
  const yearly = d.spendingLimits.yearly;
  if (yearly != null) {
    conditions.push('(attribute_not_exists(#yr) OR #yr <= :yrMax)');
    values[':yrMax'] = yearly - amount; // >= 0: consentRefusal refused a larger amount before
  }
  return {
    Update: {
      TableName: table(),
      Key,
      UpdateExpression: 'ADD #pay :one, #yr :amt',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** The pair's counter item and, when it does not count yet, the month and week items of `keys` (strongly consistent). */
async function readCounters(
  decisionId: string,
  keys: PeriodKeys,
  known?: Item | null,
): Promise<{ counter: Item | undefined; legacy?: { month: Item | undefined; week: Item | undefined } }> {
  const counter = known === undefined ? await getItem(pairCounterKey(decisionId)) : (known ?? undefined);
  if (pairCounts(counter)) return { counter };
  const k = limitCounterKeys(decisionId, keys);
  const found = await batchGetByKey<Item>([k.month, k.week]);
  return { counter, legacy: { month: found.get(itemKeyOf(k.month)), week: found.get(itemKeyOf(k.week)) } };
}

/** The decision and the pair's counter item, read together (a retry after a change). */
async function readPair(decisionId: string): Promise<{ decision: DecisionItem | undefined; counter: Item | undefined }> {
  const found = await batchGetByKey<Item>([decisionKey(decisionId), pairCounterKey(decisionId)]);
  return {
    decision: found.get(itemKeyOf(decisionKey(decisionId))) as DecisionItem | undefined,
    counter: found.get(itemKeyOf(pairCounterKey(decisionId))),
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
export const counterItem = (u: CounterUpdate | PairCounterUpdate): TransactItem => ({ Update: { TableName: table(), ...u } });

/**
 * The release of a billing's reservation (declined, expired, failed), in the same transaction
 * as its status change: from the pair's counter item (`pairRelease`, conditioned on the item
 * counting), or, when `legacy` (the counter item turned out not to count: a billing reserved
 * before release 3 on a pair not billed since), from the month and week items it was
 * reserved on.
 */
export function limitReleaseItems(bill: Pick<BillItem, 'decisionId' | 'amount' | 'periods' | 'createdAt'>, legacy = false): TransactItem[] {
  const reserved = billPeriods(bill);
  if (legacy) return Object.values(limitRelease(bill.decisionId, bill.amount, reserved)).map(counterItem);
  return [counterItem(pairRelease(bill.decisionId, bill.amount, reserved))];
}

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
  let known = input.counter;
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
    const { counter, legacy } = await readCounters(decId, periods, known);
    const carried = decision !== undefined && counter?.[DECISION_VERSION] === decision.version;
    const decItem = decisionItem(type, decId, decision, amount, now, carried);
    const reservation = pairReservation(decId, limits, amount, periods, {
      seen: counter,
      legacy,
      // The counter item stands for the decision: its version (or, with no decision, that none was written since).
      ...(decItem === undefined ? { decisionVersion: decision?.version ?? null } : { setDecisionVersion: decision!.version }),
      ...(type !== 'one_time' ? { lastUsed: nowIso } : {}),
    });
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
    const own = input.extraItems ?? [];
    const riderItems = input.rider ? await input.rider.items(bill) : [];
    const extra = [...own, ...riderItems];
    const ITEM_COUNTER = extra.length;
    const ITEM_BILL = extra.length + 1;
    const ITEM_DECISION = extra.length + 2;
    const items: TransactItem[] = [
      ...extra,
      { Update: { TableName: table(), ...reservation.update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      { Put: { TableName: table(), Item: bill, ConditionExpression: 'attribute_not_exists(pk)' } },
      ...(decItem ? [decItem] : []),
    ];

    try {
      await commit(items, [{ type: 'billing.request', to: customer.bankId, data: billingRequestEvent(bill, customer.clientRef) }], {
        eventDue: sandboxBankDue,
        recordOn: ITEM_BILL,
        carry: { on: ITEM_BILL, args: { clientRef: customer.clientRef } },
      });
      input.rider?.committed();
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
      checkRider(e, own.length, riderItems.length);
      if (extra.some((_, i) => failed(i))) throw e;
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
      // Which condition of the counter item failed: the decision (its version moved on, or a
      // decision appeared), the first counting (another billing counted first), or a limit.
      const counterNow = failed(ITEM_COUNTER) ? reasonItem(e, ITEM_COUNTER) : undefined;
      const decisionMoved =
        failed(ITEM_DECISION) ||
        (failed(ITEM_COUNTER) && decItem === undefined && (counterNow?.[DECISION_VERSION] ?? null) !== (decision?.version ?? null));
      const countingStarted = failed(ITEM_COUNTER) && !pairCounts(counter) && pairCounts(counterNow);
      if (failed(ITEM_COUNTER) && !decisionMoved && !countingStarted) return { ok: false, refusal: 'limits', attempts: attempt };
      const retryable =
        decisionMoved ||
        countingStarted ||
        codes.some((c) => c === 'TransactionConflict' || RETRYABLE_ERRORS.has(c) || c === 'ThrottlingError');
      if (!retryable) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        logger.warn('billing contention: giving up', { merchantId: merchant.id, decisionId: decId, attempts: attempt });
        return { ok: false, refusal: 'busy', attempts: attempt };
      }
      if (!decisionMoved) await conflictBackoff(attempt, CONTENTION);
      ({ decision, counter: known } = await readPair(decId));
      known ??= null;
    }
  }
}

/** The item a cancelled transaction returned for index `i` (ReturnValuesOnConditionCheckFailure ALL_OLD), plain. */
function reasonItem(e: unknown, i: number): Item | undefined {
  const raw = (e as { CancellationReasons?: { Item?: Record<string, unknown> }[] }).CancellationReasons?.[i]?.Item;
  return raw ? (unmarshallItem(raw as never) as Item) : undefined;
}
