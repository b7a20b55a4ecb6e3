import { advance, completionReason, RECURRING_RUN_KIND, resumeCursor } from './policy';
import { dueAttributes } from '../platform/due';
import { db } from '../platform/clients';
import { isConditionFailure, table, UpdateCommand } from '../platform/table';
import { datesOf, getSchedule, scheduleKey, getMerchantSchedule, getPartySchedule, type ScheduleItem, type ScheduleParty } from './views';
import type { Change } from '../platform/update';
import { cursorSet, DUE_ATTRIBUTES, dueOf, event, MAX_ATTEMPTS, mutate, runDueOf, type ScheduleActor } from './store';

const hasRun = (s: ScheduleItem) => s.runSeq !== undefined;

/** An event's `reason`, present only when the actor gave one (DESIGN 8.5). */
const reasonField = (reason?: string | null) => (reason ? { reason } : {});

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
export function resumeSchedule(merchantId: string, id: string, now: string, reason?: string | null): Promise<LifecycleResult> {
  return resume(() => getMerchantSchedule(merchantId, id), 'merchant', now, reason);
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

function resume(
  read: () => Promise<ScheduleItem | undefined>,
  actor: ScheduleActor,
  now: string,
  reason?: string | null,
): Promise<LifecycleResult> {
  // DESIGN 8.5: every schedule.* event carries `reason` when the actor gave one.
  const resumed = { resumedAt: now, ...reasonField(reason) };
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
          events: (n) => [event('schedule.resumed', n, actor, resumed)],
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
            event('schedule.resumed', n, actor, resumed),
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
        events: (n) => [event('schedule.resumed', n, actor, resumed)],
        result: (n) => ({ ok: true, schedule: n }),
      };
    },
    () => ({ ok: false, reason: 'not_found' }),
  );
}

/**
 * A party's change: the merchant (its own schedules) or the customer's bank (DESIGN 8.5), and
 * its reason; `system` when the service acts on the party's schedule (deleting the sandbox
 * test clock it was made on, DESIGN 9.2).
 */
export interface Acting {
  party: ScheduleParty;
  reason?: string | null;
  system?: true;
}

const actorOf = (a: Acting): ScheduleActor => (a.system ? 'system' : 'bankId' in a.party ? 'bank' : 'merchant');
const reasonOf = (a: Acting) => reasonField(a.reason);

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
      // The service ends only what is still open: a completed schedule stays completed.
      if (by.system && s.status === 'completed') return { kind: 'done', result: { ok: true, schedule: s } };
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
    // Ended (a deleted test clock's run still at the bank included, DESIGN 9.2): not active.
    if (s.status === 'cancelled' || s.status === 'completed') return { ok: false, reason: 'not_active' };
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
