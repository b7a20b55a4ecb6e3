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
import { RECURRING_RUN_KIND } from '../recurring/policy';
import { db } from '../platform/clients';
import { getMerchantSchedule, scheduleKey, type ScheduleItem } from '../recurring/views';
import { isConditionFailure, table, UpdateCommand } from '../platform/table';
import { dueAttributes } from '../platform/due';

export type RunNowResult =
  | { ok: true; schedule: ScheduleItem }
  | { ok: false; reason: 'not_found' | 'not_active' | 'run_in_progress' | 'contention' };

const MAX_ATTEMPTS = 8;

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
