/**
 * Due kind `decision.validity` (DESIGN 8.5): when a decision's validTo passes, its history gets
 * a version by the system (`validity_expired`). Billing does not wait for it: validity is
 * checked at every billing (domain/consent.ts `validAt`); this records the change for the
 * merchant and the bank. "Now" is the tick's time.
 */
import { releaseClaim, rescheduleClaim, type DueJob } from '../platform/due';
import { logger } from '../platform/log';
import { decisionKey, getDecision } from './views';
import { recordValidityExpired, VALIDITY_KIND } from './store';

export async function expireValidity(job: DueJob): Promise<void> {
  const d = await getDecision(job.id);
  // Gone, or changed since the claim (a new validTo moved the entry): not ours to act on.
  if (!d || d.dueSk !== job.leasedSk) return;
  if (!d.validTo) return void (await releaseClaim(decisionKey(d.id), job.leasedSk));
  if (Date.parse(d.validTo) > Date.parse(job.now))
    return void (await rescheduleClaim(decisionKey(d.id), VALIDITY_KIND, d.id, d.validTo, job.leasedSk));
  if (await recordValidityExpired(d, job.leasedSk, job.now))
    logger.info('decision validity expired', { decisionId: d.id, version: d.version + 1 });
}
