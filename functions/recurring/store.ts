/**
 * Recurring schedules, the workflow (spec "Recurring schedule", DESIGN 6.9 Recurring;
 * docs/decisions.md "Recurring schedules"): create, pause/resume/cancel and the run state
 * machine. The item, its reads and views are views.ts.
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
import { billingOutcomeReason, isCustomerRefusal, type BillingOutcome } from '../bills/outcome';
import {
  advance,
  afterFailure,
  answerDeadline,
  completionReason,
  firstDueAt,
  nextRetryAt,
  RECURRING_RUN_KIND,
  resumeCursor,
  type Cursor,
} from './policy';
import { config } from '../config';
import { toMajor } from '../domain/money';
import { dueAttributes } from '../platform/due';
import type { BillItem } from '../bills/types';
import { decisionKey, type DecisionItem } from '../decisions/store';
import { participantKey } from '../identity/participant-store';
import { db } from '../platform/clients';
import { cancellationCodes, isConditionFailure, isTransactionCancelled, table, UpdateCommand, type TransactItem } from '../platform/table';
import { backoff } from '../platform/retry';
import {
  datesOf,
  getSchedule,
  newScheduleId,
  scheduleEventData,
  scheduleKey,
  merchantSchedulesPk,
  bankSubscriptionsPk,
  getMerchantSchedule,
  getPartySchedule,
  type RunRefusal,
  type ScheduleItem,
  type ScheduleParty,
} from './views';

const dueOf = (id: string, at: string | Date) => dueAttributes(RECURRING_RUN_KIND, id, at);
const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

const noticeMs = () => config.preDebitNoticeSeconds() * 1000;

/** Description of a run's billing (and of its notice) when the schedule has none. */
export const DEFAULT_RUN_DESCRIPTION = 'Recurring billing';

/**
 * The due entry of a run of period `occurrence` at `runAt`: the bank's pre-debit notice first
 * (DESIGN 8.5), unless that period was announced already; the worker then moves it to runAt.
 */
const runDueOf = (id: string, runAt: string | Date, occurrence: number, noticedOccurrence: number | undefined) =>
  dueOf(id, firstDueAt(new Date(runAt), noticeMs(), occurrence, noticedOccurrence));

/** Who caused a `schedule.*` event (DESIGN 8.5): on every one of them, with `reason` when given. */
export type ScheduleActor = 'merchant' | 'bank' | 'system';

export const event = (type: string, s: ScheduleItem, actor: ScheduleActor, extra: Record<string, unknown> = {}): EventSpec => ({
  type,
  to: s.merchantId,
  data: scheduleEventData(s, { actor, ...extra }),
});

// ---------------------------------------------------------------------------------------
// Update expressions

export interface Change {
  set?: Record<string, unknown>;
  remove?: string[];
  add?: Record<string, number>;
}

function updateParts(c: Change) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  const adds: string[] = [];
  let i = 0;
  for (const [k, v] of Object.entries(c.set ?? {})) {
    if (v === undefined) continue;
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    sets.push(`#u${i} = :u${i}`);
    i++;
  }
  for (const k of c.remove ?? []) {
    names[`#u${i}`] = k;
    removes.push(`#u${i}`);
    i++;
  }
  for (const [k, v] of Object.entries(c.add ?? {})) {
    names[`#u${i}`] = k;
    values[`:u${i}`] = v;
    adds.push(`#u${i} :u${i}`);
    i++;
  }
  const expr = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { expr, names, values };
}

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
  const next = { ...s } as Record<string, unknown>;
  for (const [k, v] of Object.entries(c.set ?? {})) if (v !== undefined) next[k] = v;
  for (const k of c.remove ?? []) delete next[k];
  for (const [k, v] of Object.entries(c.add ?? {})) next[k] = ((next[k] as number | undefined) ?? 0) + v;
  next.version = s.version + 1;
  return next as ScheduleItem;
}

const RUN_ATTRIBUTES = [
  'runSeq',
  'runOccurrence',
  'runAttempt',
  'runBillingRequestId',
  'runStartedAt',
  'runAnswerBy',
  'runRetryAt',
  'outcomeSeq',
  'outcomeStatus',
  'outcomeAt',
  'outcomeReason',
];

/** When the attempt `s` is about to make is retried if it fails, under the merchant's policy (DESIGN 8.6). */
export const retryAtOf = (s: ScheduleItem, ranAt: Date, retryAfterDays: readonly number[] | undefined): string | null =>
  nextRetryAt(datesOf(s), s.occurrence, s.attempt, ranAt, retryAfterDays)?.toISOString() ?? null;
const DUE_ATTRIBUTES = ['duePk', 'dueSk'];

const hasRun = (s: ScheduleItem) => s.runSeq !== undefined;
const runSettled = (s: ScheduleItem) => s.runSeq !== undefined && s.outcomeSeq === s.runSeq;

/** Cursor attributes (+ due entry when the schedule stays active). */
function cursorSet(c: Cursor): Record<string, unknown> {
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

const MAX_ATTEMPTS = 8;

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

export type LifecycleResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'not_found' | 'not_active' | 'not_paused' };

/**
 * Pause an active schedule (also one whose run is at the bank: `processing`). A run in
 * flight is not withdrawn: its outcome is still counted when the bank answers, and no
 * further run starts until the schedule is resumed: by the merchant, or by the service at
 * `resumesAt` (DESIGN 8.6) through the schedule's own due entry (`recurring.run` sees a
 * paused schedule whose resumesAt has come and resumes it, actor `system`).
 */
export function pauseSchedule(
  merchantId: string,
  id: string,
  reason: string | null,
  now: string,
  resumesAt: string | null = null,
): Promise<LifecycleResult> {
  return mutate<LifecycleResult>(
    () => getMerchantSchedule(merchantId, id),
    (s) => {
      if (s.status !== 'active' && s.status !== 'processing') return { kind: 'done', result: { ok: false, reason: 'not_active' } };
      const change: Change = {
        set: {
          status: 'paused',
          pausedAt: now,
          pauseReason: reason,
          pausedBy: 'merchant',
          resumesAt,
          updatedAt: now,
          // A run in flight keeps its answer deadline on the due index (finishing it puts resumesAt back).
          ...(resumesAt && !hasRun(s) ? dueOf(s.scheduleId, resumesAt) : {}),
        },
        remove: hasRun(s) || resumesAt ? [] : DUE_ATTRIBUTES,
      };
      return {
        kind: 'change',
        change,
        events: (n) => [
          event('schedule.paused', n, 'merchant', { pausedAt: now, reason, pausedBy: 'merchant', ...(resumesAt ? { resumesAt } : {}) }),
        ],
        result: (n) => ({ ok: true, schedule: n }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/**
 * Resume a paused schedule: the next date is the first occurrence strictly after now that
 * was not handled already (missed periods are skipped, never billed late). A schedule whose
 * endDate has passed meanwhile completes instead. A run still at the bank from before the
 * pause makes the schedule `processing` again (its outcome moves the cursor on).
 */
export function resumeSchedule(merchantId: string, id: string, now: string): Promise<LifecycleResult> {
  return resume(() => getMerchantSchedule(merchantId, id), 'merchant', now);
}

/**
 * The service's resume at `resumesAt` (the `recurring.run` worker, under its lease): only a
 * schedule still paused with that resumesAt due by `now` (a manual resume or a new pause
 * first wins: the version changed or resumesAt is gone).
 */
export function resumeDueSchedule(id: string, leasedSk: string, now: Date): Promise<LifecycleResult> {
  return resume(
    async () => {
      const s = await getSchedule(id);
      return s && s.status === 'paused' && s.dueSk === leasedSk && s.resumesAt && Date.parse(s.resumesAt) <= now.getTime() ? s : undefined;
    },
    'system',
    now.toISOString(),
  );
}

function resume(read: () => Promise<ScheduleItem | undefined>, actor: ScheduleActor, now: string): Promise<LifecycleResult> {
  return mutate<LifecycleResult>(
    read,
    (s) => {
      if (s.status !== 'paused') return { kind: 'done', result: { ok: false, reason: 'not_paused' } };
      const base = { resumedAt: now, updatedAt: now, pauseReason: null, pausedBy: null, resumesAt: null };
      if (hasRun(s)) {
        const change: Change = { set: { ...base, status: 'processing' } };
        return {
          kind: 'change',
          change,
          events: (n) => [event('schedule.resumed', n, actor, { resumedAt: now })],
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      const dates = datesOf(s);
      const cursor = resumeCursor(dates, s.occurrence, new Date(now));
      const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
      if (done) {
        const change: Change = {
          set: { ...base, status: 'completed', completedAt: now, completionReason: done, nextBillingDate: null },
          remove: DUE_ATTRIBUTES,
        };
        return {
          kind: 'change',
          change,
          events: (n) => [
            event('schedule.resumed', n, actor, { resumedAt: now }),
            event('schedule.completed', n, 'system', { completedAt: now, reason: done }),
          ],
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      const change: Change = {
        set: {
          ...base,
          status: 'active',
          ...cursorSet(cursor),
          ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence),
        },
      };
      return {
        kind: 'change',
        change,
        events: (n) => [event('schedule.resumed', n, actor, { resumedAt: now })],
        result: (n) => ({ ok: true, schedule: n }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/** A party's change: the merchant (its own schedules) or the customer's bank (DESIGN 8.5), and its reason. */
export interface Acting {
  party: ScheduleParty;
  reason?: string | null;
}

const actorOf = (a: Acting): ScheduleActor => ('bankId' in a.party ? 'bank' : 'merchant');
const reasonOf = (a: Acting) => (a.reason ? { reason: a.reason } : {});

/**
 * Cancel from any state; cancelling again answers with the first cancellation. A run in
 * flight is not withdrawn (its billing is at the bank): its outcome is still recorded. The
 * merchant or the customer's bank may cancel; `schedule.cancelled` names which, and why.
 */
export function cancelSchedule(by: Acting, id: string, now: string): Promise<LifecycleResult> {
  return mutate<LifecycleResult>(
    () => getPartySchedule(by.party, id),
    (s) => {
      if (s.status === 'cancelled') return { kind: 'done', result: { ok: true, schedule: s } };
      const change: Change = {
        set: {
          status: 'cancelled',
          cancelledAt: now,
          nextBillingDate: null,
          updatedAt: now,
          cancelledBy: actorOf(by),
          cancelReason: by.reason ?? null,
        },
        remove: hasRun(s) ? [] : DUE_ATTRIBUTES,
      };
      return {
        kind: 'change',
        change,
        events: (n) => [event('schedule.cancelled', n, actorOf(by), { cancelledAt: now, ...reasonOf(by) })],
        result: (n) => ({ ok: true, schedule: n }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

export type SkipResult =
  | { ok: true; schedule: ScheduleItem; skippedRunAt: string }
  | { ok: false; reason: 'not_found' | 'not_active' | 'run_in_progress' };

/**
 * Skip the next run (DESIGN 8.5): the period of the next run is not billed; the schedule
 * moves to the first later period whose date is after now (a pending retry of the period is
 * dropped with it), or completes when none is left (endDate). Only an active schedule with
 * no run at the bank: a run in flight cannot be withdrawn. `schedule.run_skipped` (who
 * skipped, why, and which run) is written in the same transaction.
 */
export function skipNextRun(by: Acting, id: string, now: string): Promise<SkipResult> {
  return mutate<SkipResult>(
    () => getPartySchedule(by.party, id),
    (s) => {
      if (hasRun(s) || s.status === 'processing') return { kind: 'done', result: { ok: false, reason: 'run_in_progress' } };
      if (s.status !== 'active' || !s.nextBillingDate) return { kind: 'done', result: { ok: false, reason: 'not_active' } };
      const skippedRunAt = s.nextBillingDate;
      const dates = datesOf(s);
      const cursor = advance(dates, s.occurrence, new Date(now));
      const skipped = { skippedRunAt, skippedSequence: s.seq, ...reasonOf(by) };
      const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
      const base = { updatedAt: now, lastSkippedAt: now };
      if (done) {
        const change: Change = {
          set: { ...base, ...cursorSet(cursor), status: 'completed', completedAt: now, completionReason: done, nextBillingDate: null },
          remove: DUE_ATTRIBUTES,
        };
        return {
          kind: 'change',
          change,
          events: (n) => [
            event('schedule.run_skipped', n, actorOf(by), skipped),
            event('schedule.completed', n, 'system', { completedAt: now, reason: done }),
          ],
          result: (n) => ({ ok: true, schedule: n, skippedRunAt }),
        };
      }
      const change: Change = {
        set: { ...base, ...cursorSet(cursor), ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence) },
      };
      return {
        kind: 'change',
        change,
        events: (n) => [event('schedule.run_skipped', n, actorOf(by), skipped)],
        result: (n) => ({ ok: true, schedule: n, skippedRunAt }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

export type NoticeResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'claim_lost' };

/**
 * The bank's pre-debit notice of the next run (DESIGN 8.5): `billing.upcoming` to the bank and
 * the period marked announced, in one transaction conditioned on the tick's lease and the
 * version read, so a repeated or concurrent job cannot announce it twice. When the run is
 * still ahead the due entry moves to its date; when it is due already the entry stays (the
 * worker goes on to the run under the same lease).
 */
export async function sendRunNotice(s: ScheduleItem, leasedSk: string, merchantName: string, now: Date): Promise<NoticeResult> {
  const runAt = s.nextBillingDate!;
  const ahead = Date.parse(runAt) > now.getTime();
  const change: Change = { set: { noticedOccurrence: s.occurrence, noticedRunAt: runAt, ...(ahead ? dueOf(s.scheduleId, runAt) : {}) } };
  const item = updateItem(s.scheduleId, change, {
    expr: 'dueSk = :leased AND version = :ver AND attribute_not_exists(runSeq)',
    values: { ':leased': leasedSk, ':ver': s.version },
  });
  const upcoming: EventSpec = {
    type: 'billing.upcoming',
    to: s.bankId,
    data: {
      scheduleId: s.scheduleId,
      runAt,
      sequence: s.seq,
      amount: toMajor(s.amount),
      currency: s.currency,
      customerId: s.customerId,
      entityId: s.merchantId,
      merchantName,
      description: s.description ?? DEFAULT_RUN_DESCRIPTION,
    },
  };
  try {
    await commit([item], [upcoming]);
    return { ok: true, schedule: applied(s, change) };
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'claim_lost' };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Runs

/**
 * The run claim, committed IN the run billing's transaction (createBilling `extraItems`):
 * active -> processing, seq + 1, the run's attributes, the due entry moved to the bank's
 * answer deadline; conditioned on status active, the expected seq, no run in flight and
 * the tick's lease. So a run happens exactly once: with its billing, or not at all.
 */
export function claimRunItem(s: ScheduleItem, leasedSk: string, billingRequestId: string, now: Date, retryAt: string | null): TransactItem {
  const answerBy = answerDeadline(now).toISOString();
  return updateItem(
    s.scheduleId,
    {
      set: {
        status: 'processing',
        seq: s.seq + 1,
        runSeq: s.seq,
        runOccurrence: s.occurrence,
        runAttempt: s.attempt,
        runBillingRequestId: billingRequestId,
        runStartedAt: now.toISOString(),
        runAnswerBy: answerBy,
        runRetryAt: retryAt,
        lastRunAt: now.toISOString(),
        lastRunStatus: 'pending',
        updatedAt: now.toISOString(),
        ...dueOf(s.scheduleId, answerBy),
      },
    },
    {
      expr: '#status = :active AND seq = :seq AND dueSk = :leased AND attribute_not_exists(runSeq)',
      names: { '#status': 'status' },
      values: { ':active': 'active', ':seq': s.seq, ':leased': leasedSk },
    },
  );
}

/** Index of the claim among createBilling's items (its own four come first). */
export const CLAIM_ITEM_INDEX = 4;

const PERMISSION_REFUSALS: ReadonlySet<RunRefusal> = new Set([
  'permission_revoked',
  'merchant_blocked',
  'merchant_not_premium',
  'approval_not_valid',
  'approval_no_payments_left',
]);

export type FailRunResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'claim_lost' };

/**
 * A run refused before any billing was created (no billing, no reservation): a failed
 * attempt, `schedule.run_failed`, and
 *  - limits: the retry policy (the next day, or the next period; maybe completion);
 *  - the permission is gone (decision no longer approve_recurring, merchant blocked, merchant
 *    no longer trusted premium): the schedule is PAUSED with that reason (`schedule.paused`),
 *    so no further run is attempted until the merchant resumes it.
 * Conditioned like the claim (active, seq, no run, the lease).
 */
export async function failRunAtCreation(
  s: ScheduleItem,
  leasedSk: string,
  reason: RunRefusal,
  now: Date,
  retryAfterDays?: readonly number[],
): Promise<FailRunResult> {
  const at = now.toISOString();
  const base: Record<string, unknown> = { seq: s.seq + 1, updatedAt: at, lastRunAt: at, lastRunStatus: 'refused' };
  const paused = PERMISSION_REFUSALS.has(reason);
  const retryAt = paused ? null : retryAtOf(s, now, retryAfterDays);
  const runFailed = {
    runSeq: s.seq,
    reason,
    customerAction: 'declined',
    scheduledFor: s.nextBillingDate,
    willRetry: retryAt !== null,
    ...(retryAt ? { nextRetryAt: retryAt } : {}),
  };
  let change: Change;
  let events: (n: ScheduleItem) => EventSpec[];
  if (paused) {
    change = {
      set: { ...base, status: 'paused', pausedAt: at, pauseReason: reason, pausedBy: 'service' },
      remove: DUE_ATTRIBUTES,
      add: { failedAttempts: 1 },
    };
    events = (n) => [
      event('schedule.run_failed', n, 'system', runFailed),
      event('schedule.paused', n, 'system', { pausedAt: at, reason, pausedBy: 'service' }),
    ];
  } else {
    const dates = datesOf(s);
    const cursor = afterFailure(dates, s.occurrence, s.attempt, now, retryAt ? new Date(retryAt) : null);
    const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
    if (done) {
      change = {
        set: { ...base, ...cursorSet(cursor), status: 'completed', completedAt: at, completionReason: done, nextBillingDate: null },
        remove: DUE_ATTRIBUTES,
        add: { failedAttempts: 1 },
      };
      events = (n) => [
        event('schedule.run_failed', n, 'system', runFailed),
        event('schedule.completed', n, 'system', { completedAt: at, reason: done }),
      ];
    } else {
      change = {
        set: { ...base, ...cursorSet(cursor), ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence) },
        add: { failedAttempts: 1 },
      };
      events = (n) => [event('schedule.run_failed', n, 'system', runFailed)];
    }
  }
  const item = updateItem(s.scheduleId, change, {
    expr: '#status = :active AND seq = :seq AND dueSk = :leased AND attribute_not_exists(runSeq)',
    names: { '#status': 'status' },
    values: { ':active': 'active', ':seq': s.seq, ':leased': leasedSk },
  });
  const next = applied(s, change);
  try {
    await commit([item], events(next));
    return { ok: true, schedule: next };
  } catch (e) {
    if (isTransactionCancelled(e) && cancellationCodes(e)[0] === 'ConditionalCheckFailed') return { ok: false, reason: 'claim_lost' };
    throw e;
  }
}

/**
 * The billing outcome hook's item (functions/recurring/outcome.ts), committed with the
 * billing's status change: unconditional and commutative, as hooks must be (a concurrent
 * pause or cancel of the schedule can neither cancel the bank's answer nor be overwritten):
 * ADD totalBillings (succeeded) or failedAttempts (declined, expired, failed), record the
 * outcome of the run in flight, and make the schedule due now, so the run is finished (next
 * date, completion, events) right after the commit, or by the next tick if that step is lost.
 */
export function recordOutcomeItem(bill: BillItem, outcome: BillingOutcome, at: Date): TransactItem {
  const id = bill.scheduleId!;
  const succeeded = outcome.status === 'succeeded';
  return updateItem(id, {
    set: {
      outcomeSeq: bill.runSeq,
      outcomeStatus: outcome.status,
      outcomeAt: at.toISOString(),
      outcomeReason: billingOutcomeReason(outcome) ?? null,
      lastRunStatus: outcome.status,
      ...dueOf(id, at),
    },
    add: succeeded ? { totalBillings: 1 } : { failedAttempts: 1 },
  });
}

export type FinishResult = { ok: true; schedule: ScheduleItem } | { ok: false; reason: 'not_found' | 'nothing_to_finish' };

/**
 * Finish the run whose outcome is recorded: the next period (success) or the retry policy
 * (failure), then active again with the next date on the due index, or completed
 * (`schedule.completed`) when maxBillings is reached or the next date passes endDate. A
 * paused schedule keeps its status (the cursor moves on; resume recomputes anyway), a
 * cancelled one only drops the run. Conditioned on the version read, retried on a fresh read.
 */
export function finishRun(id: string, now: Date): Promise<FinishResult> {
  const at = now.toISOString();
  return mutate<FinishResult>(
    () => getSchedule(id),
    (s) => {
      if (!runSettled(s)) return { kind: 'done', result: { ok: false, reason: 'nothing_to_finish' } };
      const dates = datesOf(s);
      const ranAt = new Date(s.runStartedAt!);
      const k = s.runOccurrence!;
      const cursor =
        s.outcomeStatus === 'succeeded'
          ? advance(dates, k, ranAt)
          : afterFailure(dates, k, s.runAttempt ?? 0, ranAt, retryAfterFailure(s, dates, ranAt));
      const base = { updatedAt: at };
      if (s.status === 'cancelled' || s.status === 'completed') {
        return {
          kind: 'change',
          change: { set: base, remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES] },
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      const done = completionReason(dates, s.totalBillings, cursor.nextBillingDate);
      if (done) {
        const change: Change = {
          set: { ...base, ...cursorSet(cursor), status: 'completed', completedAt: at, completionReason: done, nextBillingDate: null },
          remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES],
        };
        return {
          kind: 'change',
          change,
          events: (n) => [event('schedule.completed', n, 'system', { completedAt: at, reason: done })],
          result: (n) => ({ ok: true, schedule: n }),
        };
      }
      if (s.status === 'paused') {
        // Paused while the run was at the bank: off the index, or due at its resumesAt.
        const change: Change = s.resumesAt
          ? { set: { ...base, ...cursorSet(cursor), ...dueOf(s.scheduleId, s.resumesAt) }, remove: RUN_ATTRIBUTES }
          : { set: { ...base, ...cursorSet(cursor) }, remove: [...RUN_ATTRIBUTES, ...DUE_ATTRIBUTES] };
        return { kind: 'change', change, result: (n) => ({ ok: true, schedule: n }) };
      }
      const change: Change = {
        set: {
          ...base,
          ...cursorSet(cursor),
          status: 'active',
          ...runDueOf(s.scheduleId, cursor.nextBillingDate!, cursor.occurrence, s.noticedOccurrence),
        },
        remove: RUN_ATTRIBUTES,
      };
      return { kind: 'change', change, result: (n) => ({ ok: true, schedule: n }) };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/**
 * The retry of the failed run in flight: none after the customer's refusal (DESIGN 8.6), else
 * the one fixed when it started (a run started before retries were recorded: the default policy).
 */
function retryAfterFailure(s: ScheduleItem, dates: ReturnType<typeof datesOf>, ranAt: Date): Date | null {
  if (isCustomerRefusal(s.outcomeReason ?? undefined)) return null;
  if (s.runRetryAt !== undefined) return s.runRetryAt === null ? null : new Date(s.runRetryAt);
  return nextRetryAt(dates, s.runOccurrence!, s.runAttempt ?? 0, ranAt);
}

/** Put the schedule back on the due index at `at`, only while the tick's claim holds. */
function rescheduleDueItem(id: string, leasedSk: string, at: string | Date): TransactItem {
  const due = dueOf(id, at);
  return updateItem(id, { set: { duePk: due.duePk, dueSk: due.dueSk } }, { expr: 'dueSk = :leased', values: { ':leased': leasedSk } });
}

/** Take the schedule off the due index, only while the tick's claim holds. */
function clearDueItem(id: string, leasedSk: string): TransactItem {
  return updateItem(id, { remove: DUE_ATTRIBUTES }, { expr: 'dueSk = :leased', values: { ':leased': leasedSk } });
}

/** A conditional single-item update outside a transaction; a failed condition = someone else moved on. */
async function sendIfStillOurs(item: TransactItem): Promise<void> {
  try {
    await db().send(new UpdateCommand(item.Update as ConstructorParameters<typeof UpdateCommand>[0]));
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
}

/** The run worker's claim, moved to `at` (only while it is ours). */
export const rescheduleRunClaim = (id: string, leasedSk: string, at: string | Date) => sendIfStillOurs(rescheduleDueItem(id, leasedSk, at));

/** The run worker's claim, released: the schedule leaves the due index (only while it is ours). */
export const clearRunClaim = (id: string, leasedSk: string) => sendIfStillOurs(clearDueItem(id, leasedSk));

// ---------------------------------------------------------------------------------------
// Sandbox: the next run due now

/**
 * Sandbox helper `POST /v1/sandbox/recurring/{scheduleId}/run`: the schedule's next run is due
 * NOW instead of at its nextBillingDate. Only the date of that one run moves: its period and
 * attempt stay, so the run bills the same period, and after it the following periods keep
 * their dates (functions/recurring/policy.ts `advance`: the first period strictly after the
 * run). The run itself is the normal `recurring.run` worker's, started by the next tick
 * (every second locally), with every check a real run makes (trust, decision, limits).
 *
 * One conditional update of the schedule: status active, no run in flight, the version read
 * (a concurrent pause, cancel or run wins; we re-read and decide again). A schedule that is
 * already due by `now` (a parallel call made it so) is the result asked for: no write. Still
 * losing after MAX_ATTEMPTS rounds is `contention` (409 for the caller, never a 500).
 */
export type RunNowResult =
  | { ok: true; schedule: ScheduleItem }
  | { ok: false; reason: 'not_found' | 'not_active' | 'run_in_progress' | 'contention' };

export async function makeNextRunDueNow(merchantId: string, scheduleId: string, now: Date): Promise<RunNowResult> {
  for (let attempt = 1; ; attempt++) {
    const s = await getMerchantSchedule(merchantId, scheduleId);
    if (!s) return { ok: false, reason: 'not_found' };
    if (s.runSeq !== undefined || s.status === 'processing') return { ok: false, reason: 'run_in_progress' };
    if (s.status !== 'active') return { ok: false, reason: 'not_active' };
    if (attempt > 1 && s.nextBillingDate && Date.parse(s.nextBillingDate) <= now.getTime()) return { ok: true, schedule: s };
    const at = now.toISOString();
    const due = dueAttributes(RECURRING_RUN_KIND, s.scheduleId, now);
    try {
      await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: scheduleKey(s.scheduleId),
          UpdateExpression: 'SET nextBillingDate = :at, duePk = :dpk, dueSk = :dsk, updatedAt = :at ADD version :one',
          ConditionExpression: '#status = :active AND attribute_not_exists(runSeq) AND version = :version',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':at': at,
            ':dpk': due.duePk,
            ':dsk': due.dueSk,
            ':one': 1,
            ':active': 'active',
            ':version': s.version,
          },
        }),
      );
      return { ok: true, schedule: { ...s, nextBillingDate: at, ...due, updatedAt: at, version: s.version + 1 } };
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      if (attempt >= MAX_ATTEMPTS) return { ok: false, reason: 'contention' };
      // Changed since we read it: decide again on the new state.
    }
  }
}
