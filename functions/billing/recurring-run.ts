/**
 * Where a recurring schedule's run is billed. It lives with billing, not in recurring/:
 * billing imports the recurring feature (its outcome handler, the run state machine), so
 * recurring/ never imports billing/.
 *
 * Due kind `recurring.run` (DESIGN 2 time path, 6.8, 6.9 Recurring; docs/decisions/
 * recurring-schedules.md). The tick claims a schedule's due entry (a lease); this worker then
 * acts on the schedule's state, so a repeated or late job changes nothing:
 *
 *  - active, nextBillingDate reached, no run in flight: START a run. The run id is
 *    (scheduleId, seq). The claim (active -> processing, seq + 1, conditioned on status
 *    active, that seq, no run in flight and the tick's lease) is committed IN the billing's
 *    transaction (createBilling `extraItems`): the billing (type recurring, requiresApproval
 *    false, limits reserved, `billing.request` with scheduleId to the bank) and the claim
 *    happen together or not at all; its id is derived from the run id, so no run can bill
 *    twice. A run refused before billing (merchant no longer trusted premium, decision no
 *    longer approve_recurring, merchant blocked, spending limits) creates no billing: a
 *    failed attempt, `schedule.run_failed`, and the retry policy or a pause
 *    (recurring/run-store.ts `failRunAtCreation`).
 *  - run in flight, its outcome recorded (bank answer): FINISH it (next date or retry,
 *    active or completed). Normally done right after the bank's answer; this is the net.
 *  - run in flight, the bank has not answered by the deadline: the billing FAILS
 *    (`reason: bank_no_answer`, released, `billing.response`), which counts a failed attempt.
 *  - active, the bank's pre-debit notice of the next period not sent yet (DESIGN 8.5): at
 *    runAt - PRE_DEBIT_NOTICE_SECONDS (or at once when that is past) SEND it
 *    (`billing.upcoming`, recurring/run-store.ts `sendRunNotice`), then wait for runAt (or go on
 *    to the run now when it is due already).
 *  - paused with `resumesAt` (DESIGN 8.6) reached: RESUME it (`schedule.resumed`, actor
 *    system); the resumed schedule is due again for its next run.
 *  - anything else (paused, cancelled, completed, not yet due): off the index, or back at
 *    the right time.
 *
 * "Now" is the tick's time (`job.now`), never the clock.
 */
import { billingRequestIdFor, runSeed } from './bill-item';
import { createBilling, type BillingRefusal } from './create-billing';
import { billingRefusalFor } from '../domain/decisions';
import { getBillingCustomers } from '../bills/reads';
import { pairCounterKey } from '../domain/limits';
import { settleBilling } from './settle-billing';
import { canCreateRecurring, trustOf } from '../domain/trust';
import { logger } from '../platform/log';
import { billKey, type BillItem } from '../bills/types';
import { decisionKey, type DecisionItem } from '../decisions/views';
import { participantKey, type Participant } from '../identity/participant-store';
import {
  CLAIM_ITEM_INDEX,
  claimRunItem,
  clearRunClaim,
  failRunAtCreation,
  finishRun,
  rescheduleRunClaim,
  retryAtOf,
  sendRunNotice,
} from '../recurring/run-store';
import { DEFAULT_RUN_DESCRIPTION } from '../recurring/store';
import { resumeDueSchedule } from '../recurring/lifecycle-store';
import { noticeAt, noticeDue } from '../recurring/policy';
import { config } from '../config';
import { getSchedule, type RunRefusal, type ScheduleItem } from '../recurring/views';
import { batchGetByKey, cancellationCodes, getItem, isTransactionCancelled, itemKeyOf, type Item } from '../platform/table';
import type { DueJob } from '../platform/due';

const REFUSALS: Record<Exclude<BillingRefusal, 'busy'>, RunRefusal> = {
  limits: 'spending_limit_exceeded',
  not_approved: 'permission_revoked',
  merchant_blocked: 'merchant_blocked',
  // The consent's terms no longer allow a run (DESIGN 8.5): like a permission gone, the schedule pauses.
  not_valid: 'approval_not_valid',
  no_payments_left: 'approval_no_payments_left',
};

async function refuse(s: ScheduleItem, job: DueJob, reason: RunRefusal, now: Date, retryAfterDays?: readonly number[]): Promise<void> {
  const r = await failRunAtCreation(s, job.leasedSk, reason, now, retryAfterDays);
  if (r.ok) logger.info('recurring run refused', { scheduleId: s.scheduleId, runSeq: s.seq, reason, status: r.schedule.status });
}

/** Start the run `s.seq` (see the module comment). */
async function startRun(s: ScheduleItem, job: DueJob, now: Date): Promise<void> {
  // The merchant's trust and the decision, read fresh in one request for every run.
  const found = await batchGetByKey<Item>([participantKey(s.merchantId), decisionKey(s.decisionId), pairCounterKey(s.decisionId)]);
  const participant = found.get(itemKeyOf(participantKey(s.merchantId))) as Participant | undefined;
  const decision = found.get(itemKeyOf(decisionKey(s.decisionId))) as DecisionItem | undefined;
  const counter = found.get(itemKeyOf(pairCounterKey(s.decisionId))) ?? null;
  const trust = participant && participant.type === 'merchant' ? trustOf(participant) : undefined;
  if (!participant || !trust || !canCreateRecurring(trust)) {
    return refuse(s, job, 'merchant_not_premium', now);
  }
  const policy = participant.retryAfterDays;
  const retryAt = retryAtOf(s, now, policy);
  const before = billingRefusalFor('recurring', decision);
  if (before) return refuse(s, job, REFUSALS[before], now, policy);
  // The customer's bank data never changes: kept on the schedule (read only for older items).
  const customer = s.clientRef
    ? { id: s.customerId, bankId: s.bankId, clientRef: s.clientRef }
    : (await getBillingCustomers([s.customerId])).get(s.customerId);
  if (!customer) return refuse(s, job, 'permission_revoked', now);

  const seed = runSeed(s.scheduleId, s.seq);
  try {
    const r = await createBilling({
      merchant: { id: participant.id, name: participant.name, ...(participant.providerId ? { providerId: participant.providerId } : {}) },
      customer,
      decision,
      counter,
      trust,
      amount: s.amount,
      currency: s.currency,
      description: s.description ?? DEFAULT_RUN_DESCRIPTION,
      type: 'recurring',
      scheduleId: s.scheduleId,
      runSeq: s.seq,
      runRetryAt: retryAt,
      now,
      idSeed: seed,
      idSeedWindowMs: Number.POSITIVE_INFINITY,
      extraItems: [claimRunItem(s, job.leasedSk, billingRequestIdFor(seed), now, retryAt)],
    });
    if (r.ok) {
      if (!r.existing)
        logger.info('recurring run started', { scheduleId: s.scheduleId, runSeq: s.seq, billingRequestId: r.bill.billingRequestId });
      return;
    }
    if (r.refusal === 'busy') {
      // Contention on the customer's decision outlasted createBilling's retries (several of
      // the pair's schedules due at once): nothing was written; due again at the next tick.
      logger.warn('recurring run: billing contention, retried at the next tick', { scheduleId: s.scheduleId, runSeq: s.seq });
      return rescheduleRunClaim(s.scheduleId, job.leasedSk, s.nextBillingDate!);
    }
    return refuse(s, job, REFUSALS[r.refusal], now, policy);
  } catch (e) {
    // The claim's condition failed: another execution ran (or the schedule changed): nothing written.
    if (isTransactionCancelled(e) && cancellationCodes(e)[CLAIM_ITEM_INDEX] === 'ConditionalCheckFailed') return;
    throw e;
  }
}

/** The bank has not answered the run's billing by the deadline: it fails (released, billing.response). */
async function giveUpOnAnswer(s: ScheduleItem, job: DueJob, now: Date): Promise<void> {
  const bill = await getItem<BillItem>(billKey(s.runBillingRequestId!));
  if (bill && bill.status === 'pending') {
    const r = await settleBilling(bill, { status: 'failed', reason: 'bank_no_answer' }, now);
    if (!r.ok && r.reason === 'busy') throw new Error('recurring run: answer deadline contention; the lease makes it due again');
    // Settled by us or by a concurrent bank answer: the outcome hook recorded it and finished the run.
    return;
  }
  // Not pending but no outcome recorded: impossible while outcomes go through settleBilling
  // (the hook is in the outcome's transaction). Leave it visible rather than guess.
  logger.error('recurring run: billing not pending and no outcome recorded', {
    scheduleId: s.scheduleId,
    runSeq: s.runSeq,
    status: bill?.status,
  });
  await clearRunClaim(s.scheduleId, job.leasedSk);
}

export async function runRecurring(job: DueJob): Promise<void> {
  const id = job.key.pk.slice('SCHED#'.length);
  const s = await getSchedule(id);
  // Gone, or changed since the claim (paused, resumed, cancelled, finished): not ours to act on.
  if (!s || s.dueSk !== job.leasedSk) return;
  const now = new Date(job.now);

  if (s.runSeq !== undefined) {
    if (s.outcomeSeq === s.runSeq) {
      await finishRun(id, now);
      return;
    }
    if (s.runAnswerBy && Date.parse(s.runAnswerBy) > now.getTime()) {
      await rescheduleRunClaim(id, job.leasedSk, s.runAnswerBy);
      return;
    }
    await giveUpOnAnswer(s, job, now);
    return;
  }
  if (s.status === 'paused' && s.resumesAt) {
    if (Date.parse(s.resumesAt) > now.getTime()) return rescheduleRunClaim(id, job.leasedSk, s.resumesAt);
    const r = await resumeDueSchedule(id, job.leasedSk, now);
    if (r.ok) logger.info('recurring schedule resumed at resumesAt', { scheduleId: id, status: r.schedule.status });
    return;
  }
  if (s.status !== 'active' || !s.nextBillingDate) {
    await clearRunClaim(id, job.leasedSk);
    return;
  }
  const runAt = new Date(s.nextBillingDate);
  const notice = config.preDebitNoticeSeconds() * 1000;
  let current = s;
  if (noticeDue(notice, s.occurrence, s.noticedOccurrence)) {
    const at = noticeAt(runAt, notice);
    if (at.getTime() > now.getTime()) {
      await rescheduleRunClaim(id, job.leasedSk, at);
      return;
    }
    const merchant = await getItem<Participant>(participantKey(s.merchantId));
    const sent = await sendRunNotice(s, job.leasedSk, merchant?.name ?? '', now);
    // Lost: the schedule changed since the claim (paused, skipped, cancelled): not ours to act on.
    if (!sent.ok) return;
    logger.info('recurring pre-debit notice sent', { scheduleId: id, runSeq: s.seq, runAt: s.nextBillingDate });
    current = sent.schedule;
  }
  if (runAt.getTime() > now.getTime()) {
    // With a notice just sent, its transaction already moved the due entry to runAt.
    if (current === s) await rescheduleRunClaim(id, job.leasedSk, s.nextBillingDate);
    return;
  }
  await startRun(current, job, now);
}
