/**
 * Disputes (DESIGN 9.4; docs/decisions/disputes.md): every write. Each change is ONE
 * transaction through the outbox: the dispute item, the transaction (bill) when its counters
 * or its `disputeStatus` change, the money (ledger/store.ts `disputeMoneyItems`) and the event.
 *
 *   open (bank)          → needs_response   bill: the claim of bills/claims.ts (THE rule shared
 *                                            with refunds), disputedAmount += amt; money: merchant
 *                                            balance → disputes account; `dispute.created`
 *   respond (merchant)   needs_response → under_review (evidence)
 *   accept (merchant)    needs_response → lost     money: disputes account → bank
 *   expire (system)      needs_response → lost at respondBy (due kind `dispute.expiry`)
 *   resolve (bank)       needs_response | under_review → won (money back to the merchant's
 *                                            balance; the claim released) | lost
 *
 * Every change after opening sends `dispute.updated` to the merchant (+ provider) and to the
 * customer's bank. A closed dispute (won, lost) never changes again: 409 `Dispute is closed`.
 */
import { config } from '../config';
import { newId, sha256Hex } from '../domain/ids';
import { DAY_MS } from '../domain/lagos-time';
import { commit, type EventSpec } from '../events/outbox';
import { sandboxBankDue } from '../events/sandbox-bank';
import { claimableOf, claimUpdate } from '../bills/claims';
import { billKey, type BillItem } from '../bills/types';
import { disputeMoneyItems } from '../ledger/dispute-money';
import { readSettlementDay, type DisputeMovement } from '../ledger/store';
import { findBillByReference } from '../transactions/store';
import { clockNow } from '../platform/clock';
import { dueAttributes } from '../platform/due';
import { logger } from '../platform/log';
import { CARRIED_EVENT } from '../platform/definitions';
import { conflictBackoff } from '../platform/retry';
import { cancellationCodes, checkRider, getItem, isTransactionCancelled, table, type Rider, type TransactItem } from '../platform/table';
import {
  bankDisputesPk,
  DISPUTE_CREATED,
  DISPUTE_EXPIRY_KIND,
  DISPUTE_UPDATED,
  DISPUTE_WINDOW_DAYS,
  disputeEventData,
  disputeKey,
  getDispute,
  isOpen,
  merchantDisputesPk,
  type DisputeActor,
  type DisputeItem,
  type DisputeReason,
  type DisputeStatus,
} from './views';

/** Attempts before a contended change gives up (`busy`, nothing written): 20 racing claims on one transaction fit. */
const MAX_ATTEMPTS = 40;
const pause = (attempt: number) => conflictBackoff(attempt, { base: 10, cap: 300 });
const isContention = (codes: string[]) => codes.some((c) => c === 'TransactionConflict' || c === 'ThrottlingError');
/** Events to a simulated bank it must answer go on the due index (sandbox: it resolves disputes under review). */
const OPTIONS = { eventDue: sandboxBankDue };

// ---------------------------------------------------------------------------------------
// Open

export type OpenResult =
  | { ok: true; dispute: DisputeItem }
  | { ok: false; reason: 'not_found' | 'not_disputable' | 'too_late' | 'exceeds' | 'busy' };

/** The dispute a retried request's first attempt made (Idempotency-Key), when it is of this transaction. */
async function alreadyOpened(disputeId: string, bill: Pick<BillItem, 'billingRequestId'>): Promise<DisputeItem | undefined> {
  const d = await getDispute(disputeId);
  return d && d.billingRequestId === bill.billingRequestId ? d : undefined;
}

/**
 * The customer's bank disputes a succeeded debit of its customer. `amount` (minor units)
 * defaults to what is left: amount − refunds − disputes (bills/claims.ts). Refusals, in
 * order: another bank's or unknown reference (`not_found`), not succeeded, older than
 * DISPUTE_WINDOW_DAYS, more than what is left.
 */
export async function openDispute(input: {
  bankId: string;
  reference: string;
  reason: DisputeReason;
  amount?: number;
  now?: () => Date;
  /** The request's idempotency record key: the dispute id derives from it (a retry after a lost answer finds it). */
  requestKey?: string;
  /** The keyed request's idempotency record (with its 201), committed in the dispute's transaction: RiderRefused when it exists. */
  rider?: Rider<DisputeItem>;
}): Promise<OpenResult> {
  const found = await findBillByReference(input.reference);
  if (!found || found.bankId !== input.bankId) return { ok: false, reason: 'not_found' };
  const disputeId = input.requestKey ? `dsp_k${sha256Hex(`dispute:${input.requestKey}`).slice(0, 22)}` : newId('dsp');
  const made = input.requestKey ? await alreadyOpened(disputeId, found) : undefined;
  if (made) return { ok: true, dispute: made };
  let bill: BillItem = found;
  for (let attempt = 1; ; attempt++) {
    if (bill.status !== 'succeeded') return { ok: false, reason: 'not_disputable' };
    const now = input.now?.() ?? clockNow();
    const debitedAt = Date.parse(bill.answeredAt ?? bill.createdAt);
    if (now.getTime() - debitedAt > DISPUTE_WINDOW_DAYS * DAY_MS) return { ok: false, reason: 'too_late' };
    const left = claimableOf(bill);
    const amount = input.amount ?? left;
    if (amount < 1 || amount > left) return { ok: false, reason: 'exceeds' };

    const nowIso = now.toISOString();
    const respondBy = new Date(now.getTime() + config.disputeResponseSeconds() * 1000).toISOString();
    const dispute: DisputeItem = {
      ...disputeKey(disputeId),
      disputeId,
      reference: bill.reference,
      billingRequestId: bill.billingRequestId,
      merchantId: bill.merchantId,
      merchantName: bill.merchantName,
      ...(bill.providerId ? { providerId: bill.providerId } : {}),
      bankId: bill.bankId,
      customerId: bill.customerId,
      amount,
      currency: bill.currency,
      reason: input.reason,
      status: 'needs_response',
      respondBy,
      createdAt: nowIso,
      updatedAt: nowIso,
      ...(bill.testClock ? { testClock: bill.testClock } : {}),
      gsi2pk: merchantDisputesPk(bill.merchantId),
      gsi2sk: `${nowIso}#${disputeId}`,
      gsi3pk: bankDisputesPk(bill.bankId),
      gsi3sk: `${nowIso}#${disputeId}`,
      ...dueAttributes(DISPUTE_EXPIRY_KIND, disputeId, respondBy),
    };
    const items: TransactItem[] = [
      claimUpdate(
        bill,
        amount,
        { bankId: input.bankId },
        {
          adds: { disputedAmount: amount, disputeIds: new Set([disputeId]) },
          sets: { disputeStatus: 'needs_response', latestDisputeId: disputeId, updatedAt: nowIso },
        },
      ),
      { Put: { TableName: table(), Item: dispute, ConditionExpression: 'attribute_not_exists(pk)' } },
      ...disputeMoneyItems(dispute, 'dispute', now, await readSettlementDay(dispute.merchantId, now)),
    ];
    const riderItems = input.rider ? await input.rider.items(dispute) : [];
    try {
      await commit(
        [...items, ...riderItems],
        [{ type: DISPUTE_CREATED, to: dispute.merchantId, data: disputeEventData(dispute, 'bank') }],
        {
          recordOn: 1,
        },
      );
      input.rider?.committed();
      logger.info('dispute opened', { disputeId, billingRequestId: bill.billingRequestId });
      return { ok: true, dispute };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      checkRider(e, items.length, riderItems.length);
      const codes = cancellationCodes(e);
      if (codes[1] === 'ConditionalCheckFailed') {
        const first = await alreadyOpened(disputeId, bill);
        if (first) return { ok: true, dispute: first };
        throw e;
      }
      // A settlement of the day the money goes to committed after its read (a later condition): read again.
      const dayMoved = codes.slice(2).includes('ConditionalCheckFailed');
      if (codes[0] !== 'ConditionalCheckFailed' && !dayMoved && !isContention(codes)) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        logger.warn('dispute contention: giving up', { billingRequestId: bill.billingRequestId, attempts: attempt });
        return { ok: false, reason: 'busy' };
      }
      // Claimed meanwhile (condition) or contended: read the transaction again and decide again.
      if (isContention(codes)) await pause(attempt);
      const current = await getItem<BillItem>(billKey(bill.billingRequestId));
      if (!current || current.bankId !== input.bankId) return { ok: false, reason: 'not_found' };
      bill = current;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Changes

export type ChangeResult =
  | { ok: true; dispute: DisputeItem }
  | { ok: false; reason: 'not_found' | 'closed' | 'answered' | 'busy'; dispute?: DisputeItem };

interface Change {
  to: Exclude<DisputeStatus, 'needs_response'>;
  actor: DisputeActor;
  /** The statuses it may start from. */
  from: readonly DisputeStatus[];
  evidence?: string;
  /** The tick's claim (expiry): only while it holds. */
  leasedSk?: string;
  /** The request's Idempotency-Key record, written in the change's transaction (DESIGN 10.2). */
  rider?: Rider<DisputeItem>;
}

/** The bill's update for a change: the won amount given back, and `disputeStatus` when this is its latest dispute. */
function billUpdate(d: DisputeItem, bill: BillItem, to: DisputeStatus, nowIso: string): TransactItem | undefined {
  const latest = bill.latestDisputeId === d.disputeId;
  const won = to === 'won';
  if (!latest && !won) return undefined;
  const values: Record<string, unknown> = { ':id': d.disputeId, ':now': nowIso };
  let update = 'SET updatedAt = :now';
  if (latest) {
    update += ', disputeStatus = :s';
    values[':s'] = to;
  }
  if (won) {
    update += ' ADD refundReserved :neg, disputedAmount :neg';
    values[':neg'] = -d.amount;
  }
  update += ` REMOVE ${CARRIED_EVENT}`;
  return {
    Update: {
      TableName: table(),
      Key: billKey(d.billingRequestId),
      UpdateExpression: update,
      // A dispute opened meanwhile changes which one is latest: the transaction is cancelled and decided again.
      ConditionExpression: latest ? 'latestDisputeId = :id' : 'attribute_exists(pk) AND latestDisputeId <> :id',
      ExpressionAttributeValues: values,
    },
  };
}

const MONEY: Partial<Record<DisputeStatus, DisputeMovement>> = { won: 'dispute_reversal', lost: 'dispute_lost' };

async function change(disputeId: string, c: Change, now: Date): Promise<ChangeResult> {
  for (let attempt = 1; ; attempt++) {
    const d = await getDispute(disputeId);
    if (!d) return { ok: false, reason: 'not_found' };
    if (c.leasedSk !== undefined && d.dueSk !== c.leasedSk) return { ok: false, reason: 'closed', dispute: d };
    if (!c.from.includes(d.status)) return { ok: false, reason: isOpen(d.status) ? 'answered' : 'closed', dispute: d };
    const bill = await getItem<BillItem>(billKey(d.billingRequestId));
    if (!bill) throw new Error(`dispute ${disputeId}: billing request missing`);
    const nowIso = now.toISOString();
    const closing = !isOpen(c.to);
    const next: DisputeItem = {
      ...d,
      status: c.to,
      updatedAt: nowIso,
      ...(c.evidence !== undefined ? { evidence: { text: c.evidence, submittedAt: nowIso } } : {}),
      ...(closing ? { closedAt: nowIso, closedBy: c.actor } : {}),
    };
    delete next.duePk;
    delete next.dueSk;
    const values: Record<string, unknown> = { ':to': c.to, ':seen': d.status, ':now': nowIso };
    let set = '#status = :to, updatedAt = :now';
    if (c.evidence !== undefined) {
      set += ', evidence = :ev';
      values[':ev'] = next.evidence;
    }
    if (closing) {
      set += ', closedAt = :now, closedBy = :by';
      values[':by'] = c.actor;
    }
    let condition = '#status = :seen';
    if (c.leasedSk !== undefined) {
      condition += ' AND dueSk = :leased';
      values[':leased'] = c.leasedSk;
    }
    const items: TransactItem[] = [
      {
        Update: {
          TableName: table(),
          Key: disputeKey(disputeId),
          UpdateExpression: `SET ${set} REMOVE duePk, dueSk`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        },
      },
    ];
    const onBill = billUpdate(d, bill, c.to, nowIso);
    if (onBill) items.push(onBill);
    const movement = MONEY[c.to];
    if (movement) items.push(...disputeMoneyItems(d, movement, now, await readSettlementDay(d.merchantId, now)));
    const data = disputeEventData(next, c.actor);
    // The bank's first: the head event's item is written in this transaction, so a simulated
    // bank's due entry (sandbox) exists from the commit on, not from the stream's fan-out.
    const events: EventSpec[] = [
      { type: DISPUTE_UPDATED, to: d.bankId, data },
      { type: DISPUTE_UPDATED, to: d.merchantId, data },
    ];
    const riderItems = c.rider ? await c.rider.items(next) : [];
    try {
      await commit([...items, ...riderItems], events, { ...OPTIONS, recordOn: 0 });
      c.rider?.committed();
      logger.info('dispute updated', { disputeId, status: c.to, actor: c.actor });
      return { ok: true, dispute: next };
    } catch (e) {
      if (!isTransactionCancelled(e)) throw e;
      checkRider(e, items.length, riderItems.length); // the key's record exists: its answer instead
      const codes = cancellationCodes(e);
      if (attempt >= MAX_ATTEMPTS) return { ok: false, reason: 'busy' };
      // The dispute changed meanwhile (condition on it or on the bill) or contention: read again and decide again.
      if (!codes.includes('ConditionalCheckFailed') && !isContention(codes)) throw e;
      if (isContention(codes)) await pause(attempt);
    }
  }
}

/**
 * A merchant's action on a dispute whose `respondBy` has passed: the dispute is lost first
 * (as the expiry would have made it), then the action is refused as closed.
 */
async function beforeDeadline(d: DisputeItem, now: Date): Promise<ChangeResult | undefined> {
  if (d.status !== 'needs_response' || now.toISOString() <= d.respondBy) return undefined;
  const r = await change(d.disputeId, { to: 'lost', actor: 'system', from: ['needs_response'] }, now);
  return { ok: false, reason: 'closed', ...(r.ok ? { dispute: r.dispute } : r.dispute ? { dispute: r.dispute } : {}) };
}

/** The merchant answers with evidence: needs_response → under_review. */
export async function respondToDispute(d: DisputeItem, evidence: string, now = clockNow()): Promise<ChangeResult> {
  return (
    (await beforeDeadline(d, now)) ??
    change(d.disputeId, { to: 'under_review', actor: 'merchant', from: ['needs_response'], evidence }, now)
  );
}

/** The merchant accepts the dispute: needs_response → lost. `rider`: the request's key record, in the same transaction. */
export async function acceptDispute(d: DisputeItem, now = clockNow(), rider?: Rider<DisputeItem>): Promise<ChangeResult> {
  return (await beforeDeadline(d, now)) ?? change(d.disputeId, { to: 'lost', actor: 'merchant', from: ['needs_response'], rider }, now);
}

/** The bank decides: needs_response | under_review → won (the merchant keeps the money) | lost. `rider`: as acceptDispute's. */
export function resolveDispute(
  disputeId: string,
  outcome: 'won' | 'lost',
  now = clockNow(),
  rider?: Rider<DisputeItem>,
): Promise<ChangeResult> {
  return change(disputeId, { to: outcome, actor: 'bank', from: ['needs_response', 'under_review'], rider }, now);
}

/** Due kind `dispute.expiry`: past respondBy without an answer → lost (actor system), only while the claim holds. */
export function expireDispute(disputeId: string, leasedSk: string, now: Date): Promise<ChangeResult> {
  return change(disputeId, { to: 'lost', actor: 'system', from: ['needs_response'], leasedSk }, now);
}
