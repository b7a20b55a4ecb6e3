/**
 * Test clocks (sandbox only, DESIGN 8.7). A clock belongs to a merchant and holds a frozen
 * time. A merchant request with `X-Test-Clock` runs in the clock's context (platform/clock.ts):
 * what it creates reads the clock's time and puts its due entries in the clock's partition of
 * the due index (`CLOCK#<id>`), which the real tick never reads.
 *
 * Advancing (`POST .../advance {frozenTime}`) marks the clock `advancing` and puts the clock
 * itself on the REAL due index (kind `sandbox.test_clock`). Its worker processes the clock's
 * partition in due order, the entries due at one instant together (each claimed like the tick
 * claims, then run by the kind's own worker from functions/workers/kinds.ts, in the clock's context
 * at the entry's time), so advancing runs exactly the code real time runs: pre-debit notices,
 * runs, the simulated bank's answers, retries, expiries, settlements, refunds. It works in
 * bounded steps (STEP_ITEMS entries or STEP_MS), saving its progress in `frozenTime` and
 * making itself due again, so a long advance (a daily schedule over two years) never runs
 * into a function's timeout. When nothing is due up to the target: `frozenTime` = target,
 * `ready`.
 *
 * Release 3 (DESIGN 9.2): before each batch the clock's time moves to the batch's instant, only
 * while the clock is still advancing under this step's claim (a DELETE stops the step there,
 * sandbox/test-clock-delete.ts); and a batch that is the deadline of a bank's answer still
 * awaited in real time waits for it first, up to TEST_CLOCK_BANK_WAIT_SECONDS
 * (sandbox/test-clock-bank.ts).
 */
import { config } from '../config';
import { frozenAt, withTestClock } from '../platform/clock';
import { claimDue, clockDuePk, parseDueSk, queryDuePartition, realDueAttributes, type DueHandler, type DueJob } from '../platform/due';
import { logger } from '../platform/log';
import { mapLimit } from '../platform/retry';
import { getItem, realNowIso } from '../platform/table';
import type { TestClockItem } from '../platform/test-clock-item';
import { awaitedBillings, bankWaitMs, newBankWaits, waitForAnswers } from './test-clock-bank';
import { moveWhileOurs, stillOurs, TEST_CLOCK_KIND, updateWhileOurs } from './test-clock-store';

/** Entries one step of an advance processes at most, and how long it may take. */
export const STEP_ITEMS = 1000;
export const STEP_MS = 15_000;
/**
 * The longest one step may last, bank waits included (the jobs worker's timeout is 60 s): a
 * wait that would end later is left to the next step.
 */
const STEP_BUDGET_MS = 45_000;
/** Entries read per query: those due at the first one's instant run together. */
const SAME_INSTANT_BATCH = 25;

/**
 * The worker of `sandbox.test_clock`: one bounded step of an advance (see the module comment).
 * `dueKind` is the kinds table's dispatcher (functions/workers/kinds.ts passes it: the table is
 * an entry point, above this module).
 */
export async function advanceTestClock(job: DueJob, dueKind: (kind: string) => DueHandler | undefined): Promise<void> {
  const c = await getItem<TestClockItem>(job.key);
  if (c?.status !== 'advancing' || !c.targetTime || c.dueSk !== job.leasedSk) return;
  const target = new Date(c.targetTime);
  let at = Date.parse(c.frozenTime);
  const started = Date.now();
  const leaseMs = config.dueLeaseSeconds() * 1000;
  const ours = () => stillOurs(c.clockId, job.leasedSk);
  const waits = newBankWaits();
  const saveProgress = async () => {
    // Progress saved; due again at once (real time) for the next step.
    const due = realDueAttributes(TEST_CLOCK_KIND, c.clockId, realNowIso());
    await updateWhileOurs(c.clockId, job.leasedSk, 'SET frozenTime = :f, updatedAt = :now, dueSk = :dsk', {
      ':f': new Date(at).toISOString(),
      ':now': realNowIso(),
      ':dsk': due.dueSk,
    });
  };
  for (let done = 0; ; ) {
    const entries = await queryDuePartition(clockDuePk(c.clockId), target, SAME_INSTANT_BATCH);
    const entry = entries[0];
    if (!entry) {
      await updateWhileOurs(c.clockId, job.leasedSk, 'SET #s = :ready, frozenTime = :t, updatedAt = :now REMOVE targetTime, duePk, dueSk', {
        ':ready': 'ready',
        ':t': c.targetTime,
        ':now': realNowIso(),
      });
      logger.info('test clock advanced', { clockId: c.clockId, frozenTime: c.targetTime });
      return;
    }
    if (done >= STEP_ITEMS || Date.now() - started > STEP_MS) return saveProgress();
    // The entries due at the same instant as the first run together (their order among
    // themselves is no order in time, as with the tick); anything they create is seen by the
    // next query, so an item due earlier than the rest still runs first.
    const first = parseDueSk(entry.dueSk).at;
    const batch = entries.filter((e) => parseDueSk(e.dueSk).at === first);
    // Never outrun a bank (DESIGN 9.2): an answer this batch would pass the deadline of is
    // waited for first, the clock standing at its current time; then the partition is read
    // again (the answer moved the entries on).
    const awaited = await awaitedBillings(batch, Date.parse(first), waits);
    if (awaited.length > 0) {
      const waitMs = bankWaitMs();
      if (Date.now() - started + waitMs > STEP_BUDGET_MS) return saveProgress();
      logger.info('test clock waits for a bank', { clockId: c.clockId, billings: awaited.length, deadline: first });
      if (!(await waitForAnswers(awaited, waitMs, waits, ours))) return;
      continue;
    }
    at = Math.max(at, Date.parse(first));
    const nowIso = new Date(at).toISOString();
    // The clock moves to the batch's time, only while it is still advancing under this claim:
    // a DELETE (or a newer step) stops this one here, before it runs anything more.
    if (!(await moveWhileOurs(c.clockId, job.leasedSk, nowIso))) {
      logger.info('test clock advance stopped', { clockId: c.clockId, frozenTime: nowIso });
      return;
    }
    const leaseIso = new Date(at + leaseMs).toISOString();
    await mapLimit(batch, 8, async (e) => {
      const claimed = await claimDue(e, leaseIso, nowIso);
      if (!claimed) return;
      const run = dueKind(claimed.kind);
      if (!run) {
        logger.error('test clock: no worker for due kind', { clockId: c.clockId, kind: claimed.kind });
        return;
      }
      try {
        await withTestClock(frozenAt(c.clockId, at), () => run(claimed));
      } catch (error) {
        // Like a failed job: the entry stays leased (clock time) and comes due again later.
        logger.error('test clock: job failed', { clockId: c.clockId, kind: claimed.kind, error: error as Error });
      }
    });
    done += batch.length;
  }
}
