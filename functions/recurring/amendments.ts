/**
 * Amendments of a recurring schedule (DESIGN 8.6): the merchant asks to change the amount,
 * the frequency or the description; the customer's bank answers with a fresh decision.
 *
 *  - Request (`PATCH /v1/recurring/{id}`): one transaction puts a `billing.intent` for the
 *    schedule's customer (carrying `amendment: {scheduleId, amendmentId, from, to}`) and
 *    records `pendingAmendment` on the schedule (one at a time), conditioned on the version
 *    read. The schedule keeps billing its current terms meanwhile.
 *  - Answer (the bank's intent-response, or the sandbox's simulated bank: both go through
 *    `saveDecision`, which asks `amendmentAnswerItems` for items to commit WITH the decision):
 *    approve_recurring, the merchant not blocked, and limits that allow the new amount ->
 *    the schedule takes the new terms from its next run (`schedule.amended`); any other
 *    answer keeps the old terms (`schedule.amendment_declined`). Conditioned on the schedule's
 *    version, so a concurrent change makes the decision's transaction retry on fresh reads.
 *  - A new frequency re-anchors the date math at the current period's own date (occurrence
 *    0 of the new frequency): the period not yet billed (or in flight, or being retried)
 *    keeps its date, the following ones follow the new frequency.
 */
import { getBillingCustomers } from '../bills/reads';
import { allowedDecisions, limitsAllowAmount } from '../domain/decisions';
import { newId } from '../domain/ids';
import { nextBillingDate, type Frequency } from '../domain/schedule-dates';
import { trustOf } from '../domain/trust';
import { getDecision, type DecisionItem } from '../decisions/views';
import { intentEventData, newIntentItem, putNewIntent, type AmendmentTerms, type IntentItem } from '../decisions/intents';
import type { EventSpec } from '../events/outbox';
import { getParticipant } from '../identity/participant-store';
import type { TransactItem } from '../platform/table';
import { sandboxBankDue } from '../events/sandbox-bank';
import { applied, DEFAULT_RUN_DESCRIPTION, event, mutate, updateItem } from './store';
import type { Change } from '../platform/update';
import { amendmentView, getMerchantSchedule, getSchedule, type ScheduleItem } from './views';

export type AmendmentRequest = Partial<AmendmentTerms>;

export type AmendResult =
  | { ok: true; schedule: ScheduleItem; amendmentId: string }
  | { ok: false; reason: 'not_found' | 'not_active' | 'pending' | 'no_change' | 'no_permission' };

const termsOf = (s: ScheduleItem): AmendmentTerms => ({ amount: s.amount, frequency: s.frequency, description: s.description ?? null });
const sameTerms = (a: AmendmentTerms, b: AmendmentTerms) =>
  a.amount === b.amount && a.frequency === b.frequency && a.description === b.description;

/** The merchant's request (amount in minor units). */
export function requestAmendment(merchantId: string, id: string, change: AmendmentRequest, now: string): Promise<AmendResult> {
  return mutate<AmendResult>(
    () => getMerchantSchedule(merchantId, id),
    async (s) => {
      if (s.status === 'cancelled' || s.status === 'completed') return { kind: 'done', result: { ok: false, reason: 'not_active' } };
      if (s.pendingAmendment) return { kind: 'done', result: { ok: false, reason: 'pending' } };
      const from = termsOf(s);
      const to: AmendmentTerms = {
        amount: change.amount ?? from.amount,
        frequency: change.frequency ?? from.frequency,
        description: change.description !== undefined ? change.description : from.description,
      };
      if (sameTerms(from, to)) return { kind: 'done', result: { ok: false, reason: 'no_change' } };
      const [decision, merchant, customers] = await Promise.all([
        getDecision(s.decisionId),
        getParticipant(merchantId),
        s.clientRef ? undefined : getBillingCustomers([s.customerId]),
      ]);
      const clientRef = s.clientRef ?? customers?.get(s.customerId)?.clientRef;
      if (!decision || !merchant || clientRef === undefined) return { kind: 'done', result: { ok: false, reason: 'no_permission' } };
      const amendmentId = newId('amd');
      const intent = newIntentItem(
        {
          customerId: s.customerId,
          bankId: s.bankId,
          merchantId,
          lookupPhrase: decision.lookupPhrase,
          currency: s.currency,
          description: to.description ?? s.description ?? DEFAULT_RUN_DESCRIPTION,
          amendment: { scheduleId: s.scheduleId, amendmentId, from, to },
        },
        now,
      );
      const pendingAmendment = { amendmentId, intentId: intent.intentId, from, to, requestedAt: now };
      const bankEvent: EventSpec = {
        type: 'billing.intent',
        to: s.bankId,
        data: intentEventData(intent, clientRef, merchant.name, allowedDecisions(trustOf(merchant))),
      };
      return {
        kind: 'change',
        change: { set: { pendingAmendment, updatedAt: now } },
        items: [putNewIntent(intent)],
        events: () => [bankEvent],
        options: { eventDue: sandboxBankDue },
        result: (next) => ({ ok: true, schedule: next, amendmentId }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/** Why an answer keeps the old terms (`schedule.amendment_declined` `reason`). */
export type DeclineReason = 'customer_declined' | 'limits';

/** Whether the decision `d` approves the amendment's new terms, or why not. */
export function amendmentVerdict(
  d: Pick<DecisionItem, 'decision' | 'blockMerchant' | 'spendingLimits'>,
  to: AmendmentTerms,
): 'approved' | DeclineReason {
  if (d.decision !== 'approve_recurring' || d.blockMerchant) return 'customer_declined';
  return limitsAllowAmount(d.spendingLimits, to.amount) ? 'approved' : 'limits';
}

/**
 * The change that re-anchors the dates at the current period's own date when the frequency
 * changes (see the module comment); nothing when it does not.
 */
function reanchor(s: ScheduleItem, frequency: Frequency): Record<string, unknown> {
  if (frequency === s.frequency) return {};
  const periodDate = nextBillingDate(new Date(s.anchor), s.frequency, s.interval, s.occurrence);
  return {
    frequency,
    anchor: periodDate.toISOString(),
    occurrence: 0,
    ...(s.runSeq !== undefined ? { runOccurrence: 0 } : {}),
    ...(s.noticedOccurrence === s.occurrence ? { noticedOccurrence: 0 } : {}),
  };
}

/**
 * Items and events to commit with the decision that answers `intent` (`saveDecision`): the
 * amendment applied or declined, or nothing when the intent is no amendment or the schedule
 * no longer waits for this one (cancelled, completed, or the amendment was settled).
 */
export async function amendmentAnswerItems(
  intent: IntentItem,
  d: DecisionItem,
  at: string,
): Promise<{ items: TransactItem[]; events: EventSpec[] }> {
  const a = intent.amendment;
  if (!a) return { items: [], events: [] };
  const s = await getSchedule(a.scheduleId);
  const pending = s?.pendingAmendment;
  if (!s || !pending || pending.amendmentId !== a.amendmentId || s.status === 'cancelled' || s.status === 'completed')
    return { items: [], events: [] };
  const verdict = amendmentVerdict(d, pending.to);
  const change: Change =
    verdict === 'approved'
      ? {
          set: { amount: pending.to.amount, description: pending.to.description, ...reanchor(s, pending.to.frequency), updatedAt: at },
          remove: ['pendingAmendment'],
        }
      : { set: { updatedAt: at }, remove: ['pendingAmendment'] };
  const next = applied(s, change);
  const view = amendmentView(pending);
  const ev =
    verdict === 'approved'
      ? event('schedule.amended', next, 'bank', { ...view, effectiveFrom: s.nextBillingDate })
      : event('schedule.amendment_declined', next, 'bank', { ...view, reason: verdict });
  return { items: [updateItem(s.scheduleId, change, { expr: 'version = :ver', values: { ':ver': s.version } })], events: [ev] };
}
