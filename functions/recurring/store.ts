/**
 * Recurring schedules, the writes (spec "Recurring schedule", DESIGN 6.9 Recurring): the
 * schedule item's changes, creation, and the version-conditioned change every later write
 * goes through (`mutate`). The lifecycle (pause, resume, cancel, skip) is lifecycle-store.ts,
 * the run state machine run-store.ts; the item, its reads and views are views.ts.
 *
 *   SCHED#<scheduleId> / SCHED
 *     gsi2 MSCHED#<merchantId> / <createdAt>#<id>   the merchant's list
 *     gsi3 BSUB#<bankId>       / <createdAt>#<id>   the bank's subscriptions list
 *     due  recurring.run at nextBillingDate while active; at the answer deadline while a
 *          run's billing is at the bank; "now" once the billing's outcome is recorded
 *          and the run still has to be finished
 *
 * Every change increments `version`. The API's changes (pause, resume, cancel) and the
 * finishing of a run are conditioned on the version read and retried on a fresh read; the
 * run claim is conditioned on (status active, seq, the tick's lease) inside the billing's
 * own transaction; the billing outcome's record is unconditional and commutative (ADD
 * counters, SET the outcome of the run in flight), as the billing hooks require.
 */
import { commit, type CommitOptions, type EventSpec } from '../events/outbox';
import { firstDueAt, RECURRING_RUN_KIND, type Cursor } from './policy';
import { config } from '../config';
import { currentTestClock } from '../platform/clock';
import { dueAttributes } from '../platform/due';
import { decisionKey, type DecisionItem } from '../decisions/views';
import { participantKey } from '../identity/participant-store';
import { cancellationCodes, isConditionFailure, isTransactionCancelled, table, type TransactItem } from '../platform/table';
import { backoff } from '../platform/retry';
import { newScheduleId, scheduleEventData, scheduleKey, merchantSchedulesPk, bankSubscriptionsPk, type ScheduleItem } from './views';
import { applyChange, updateParts, type Change } from '../platform/update';

export const dueOf = (id: string, at: string | Date) => dueAttributes(RECURRING_RUN_KIND, id, at);
const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

const noticeMs = () => config.preDebitNoticeSeconds() * 1000;

/** Description of a run's billing (and of its notice) when the schedule has none. */
export const DEFAULT_RUN_DESCRIPTION = 'Recurring billing';

/**
 * The due entry of a run of period `occurrence` at `runAt`: the bank's pre-debit notice first
 * (DESIGN 8.5), unless that period was announced already; the worker then moves it to runAt.
 */
export const runDueOf = (id: string, runAt: string | Date, occurrence: number, noticedOccurrence: number | undefined) =>
  dueOf(id, firstDueAt(new Date(runAt), noticeMs(), occurrence, noticedOccurrence));

/** Who caused a `schedule.*` event (DESIGN 8.5): on every one of them, with `reason` when given. */
export type ScheduleActor = 'merchant' | 'bank' | 'system';

export const event = (type: string, s: ScheduleItem, actor: ScheduleActor, extra: Record<string, unknown> = {}): EventSpec => ({
  type,
  to: s.merchantId,
  data: scheduleEventData(s, { actor, ...extra }),
});

// ---------------------------------------------------------------------------------------
// Changes of the schedule item (update expressions: platform/update.ts)

export function updateItem(
  id: string,
  c: Change,
  condition?: { expr: string; names?: Record<string, string>; values?: Record<string, unknown> },
): TransactItem {
  const p = updateParts({ ...c, add: { version: 1, ...c.add } });
  const names = { ...p.names, ...condition?.names };
  const values = { ...p.values, ...condition?.values };
  return {
    Update: {
      TableName: table(),
      Key: scheduleKey(id),
      UpdateExpression: p.expr,
      ...(condition ? { ConditionExpression: condition.expr } : {}),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    },
  };
}

/** Apply a change in memory (what the transaction writes), for replies and events. */
export function applied(s: ScheduleItem, c: Change): ScheduleItem {
  return { ...applyChange(s, c), version: s.version + 1 };
}

export const DUE_ATTRIBUTES = ['duePk', 'dueSk'];

/** Cursor attributes (+ due entry when the schedule stays active). */
export function cursorSet(c: Cursor): Record<string, unknown> {
  return { occurrence: c.occurrence, attempt: c.attempt, nextBillingDate: iso(c.nextBillingDate) };
}

// ---------------------------------------------------------------------------------------
// Create

/** What the caller decides of a new schedule (the rest is derived in buildSchedule). */
export type NewSchedule = Pick<
  ScheduleItem,
  | 'merchantId'
  | 'providerId'
  | 'bankId'
  | 'customerId'
  | 'decisionId'
  | 'agreementPhrase'
  | 'amount'
  | 'currency'
  | 'frequency'
  | 'interval'
  | 'startDate'
  | 'endDate'
  | 'maxBillings'
  | 'description'
> & { clientRef: string; metadata: Record<string, unknown> | null };

export function buildSchedule(n: NewSchedule, now: string, id = newScheduleId()): ScheduleItem {
  const testClock = currentTestClock();
  return {
    ...scheduleKey(id),
    type: 'schedule',
    scheduleId: id,
    merchantId: n.merchantId,
    ...(n.providerId ? { providerId: n.providerId } : {}),
    bankId: n.bankId,
    customerId: n.customerId,
    clientRef: n.clientRef,
    decisionId: n.decisionId,
    agreementPhrase: n.agreementPhrase,
    amount: n.amount,
    currency: n.currency,
    frequency: n.frequency,
    interval: n.interval,
    status: 'active',
    startDate: n.startDate,
    endDate: n.endDate,
    anchor: n.startDate,
    nextBillingDate: n.startDate,
    occurrence: 0,
    attempt: 0,
    seq: 1,
    totalBillings: 0,
    maxBillings: n.maxBillings,
    failedAttempts: 0,
    description: n.description,
    metadataJson: n.metadata ? JSON.stringify(n.metadata) : null,
    createdAt: now,
    updatedAt: now,
    pausedAt: null,
    pauseReason: null,
    pausedBy: null,
    resumedAt: null,
    cancelledAt: null,
    completedAt: null,
    completionReason: null,
    lastRunAt: null,
    lastRunStatus: null,
    version: 1,
    // Made on a sandbox test clock (DESIGN 8.7): deleting the clock ends it (DESIGN 9.2).
    ...(testClock ? { testClock } : {}),
    gsi2pk: merchantSchedulesPk(n.merchantId),
    gsi2sk: `${now}#${id}`,
    gsi3pk: bankSubscriptionsPk(n.bankId),
    gsi3sk: `${now}#${id}`,
    // DESIGN 6.8: the first billing is due at startDate (at once when it is not in the future),
    // after the bank's pre-debit notice (DESIGN 8.5).
    ...runDueOf(id, n.startDate, 0, undefined),
  };
}

export type CreateResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'decision_changed' | 'untrusted' };

/**
 * Writes the schedule and `schedule.created` in one transaction, conditioned on the decision
 * still being the version that was checked (approve_recurring, not blocked) and the merchant
 * still trusted premium, so a concurrent decision or trust change cannot slip through.
 */
export async function saveNewSchedule(item: ScheduleItem, decision: DecisionItem): Promise<CreateResult> {
  const items: TransactItem[] = [
    { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      ConditionCheck: {
        TableName: table(),
        Key: decisionKey(decision.id),
        ConditionExpression: 'version = :v',
        ExpressionAttributeValues: { ':v': decision.version },
      },
    },
    {
      ConditionCheck: {
        TableName: table(),
        Key: participantKey(item.merchantId),
        ConditionExpression: 'trusted = :t AND trustLevel = :premium',
        ExpressionAttributeValues: { ':t': true, ':premium': 'premium' },
      },
    },
  ];
  try {
    await commit(items, [
      event('schedule.created', item, 'merchant', {
        startDate: item.startDate,
        endDate: item.endDate,
        description: item.description,
        createdAt: item.createdAt,
      }),
    ]);
    return { ok: true, schedule: item };
  } catch (e) {
    if (!isTransactionCancelled(e)) throw e;
    const codes = cancellationCodes(e);
    if (codes[2] === 'ConditionalCheckFailed') return { ok: false, reason: 'untrusted' };
    if (codes[1] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict')) return { ok: false, reason: 'decision_changed' };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Changes conditioned on the version read, retried on a fresh read

type Decision<R> =
  | {
      kind: 'change';
      change: Change;
      events?: (next: ScheduleItem) => EventSpec[];
      /** Other items committed with the change (an amendment's intent). */
      items?: TransactItem[];
      options?: CommitOptions;
      result: (next: ScheduleItem) => R;
    }
  | { kind: 'done'; result: R };

export const MAX_ATTEMPTS = 8;

export async function mutate<R>(
  read: () => Promise<ScheduleItem | undefined>,
  decide: (s: ScheduleItem) => Decision<R> | Promise<Decision<R>>,
  missing: () => R,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const s = await read();
    if (!s) return missing();
    const d = await decide(s);
    if (d.kind === 'done') return d.result;
    const next = applied(s, d.change);
    const item = updateItem(s.scheduleId, d.change, { expr: 'version = :ver', values: { ':ver': s.version } });
    try {
      const events = d.events?.(next) ?? [];
      await commit([item, ...(d.items ?? [])], events, d.options);
      return d.result(next);
    } catch (e) {
      const lost =
        isConditionFailure(e) ||
        (isTransactionCancelled(e) && cancellationCodes(e).some((c) => c === 'ConditionalCheckFailed' || c === 'TransactionConflict'));
      if (!lost || attempt >= MAX_ATTEMPTS) throw e;
      await backoff(attempt + 1, { base: 5, cap: 100, jitter: 1 });
    }
  }
}
