/**
 * Due kind `sandbox.bank` (sandbox only): an event addressed to a simulated bank
 * (`billing.intent`, `billing.request`) sits on the due index SANDBOX_BANK_DELAY_SECONDS after
 * it was committed (the outbox's sandbox hook, functions/events/sandbox-bank.ts). When the tick
 * claims it, the simulated bank answers through the bank's own code paths
 * (functions/sandbox/simulator.ts), then the event leaves the index (only while our claim
 * holds). Answers are idempotent, so a repeated job changes nothing.
 *
 * Live safety: in the live stage this worker refuses to act (and takes the item off the
 * index, so it is not claimed again); the hook never fires there and a simulated bank cannot
 * be created there.
 */
import { config } from '../config';
import { logger } from '../platform/log';
import { answerAsSimulatedBank, type SimulationResult } from './simulator';
import { getItem } from '../platform/table';
import { releaseClaim, rescheduleClaim, type DueJob } from '../platform/due';
import { SANDBOX_BANK_KIND } from '../events/sandbox-bank';

interface EventItem {
  pk: string;
  sk: string;
  id: string;
  type: string;
  to: string;
  data: Record<string, unknown>;
  dueSk?: string;
  [extra: string]: unknown;
}

async function leaveIndex(job: DueJob): Promise<void> {
  await releaseClaim(job.key, job.leasedSk);
}

/** Runs one `sandbox.bank` job; returns what the simulated bank did (undefined: nothing to do). */
export async function runSandboxBank(job: DueJob): Promise<SimulationResult | undefined> {
  if (config.stage() !== 'sandbox') {
    logger.error('sandbox.bank job in the live stage: refused', { id: job.id });
    await leaveIndex(job);
    return { acted: false, why: 'live_stage' };
  }
  const event = await getItem<EventItem>(job.key);
  // Gone, or claimed again since (a newer lease): not ours.
  if (!event || event.dueSk !== job.leasedSk) return undefined;
  const result = await answerAsSimulatedBank({ type: event.type, to: event.to, data: event.data }, new Date(job.now));
  logger.info('simulated bank', {
    eventId: event.id,
    type: event.type,
    bankId: event.to,
    acted: result.acted,
    ...(result.acted ? {} : { why: result.why }),
    outcome: result.outcome,
  });
  // A follow-up (a magic customer disputing the debit it approved): the same event is due again then.
  if (result.acted && result.event === 'billing.request' && result.followUpAt)
    await rescheduleClaim(job.key, SANDBOX_BANK_KIND, job.id, result.followUpAt, job.leasedSk);
  else await leaveIndex(job);
  return result;
}
