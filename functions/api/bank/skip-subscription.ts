import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../http/errors';
import { skipNextRun } from '../../recurring/store';
import { nowIso } from '../../platform/table';

const bodySchema = z.strictObject({ reason: safeText(500, 0).nullable().optional() });

/**
 * POST /v1/bank/subscriptions/{scheduleId}/skip (bank, for its customer; DESIGN 8.5): the next
 * run is not billed; the merchant gets `schedule.run_skipped` with `actor: "bank"` and the
 * reason. Not active -> 409 `Recurring schedule is not active`; a run already at the bank
 * (answer it instead) -> 409; unknown or another bank's customer's -> 404.
 */
export const handler = endpoint({ body: bodySchema, description: "Skip the next run of a customer's schedule" }, async ({ body, params, principal }) => {
  const r = await skipNextRun({ party: { bankId: principal.id }, reason: body.reason || null }, params.scheduleId ?? '', nowIso());
  if (!r.ok) {
    if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
    if (r.reason === 'run_in_progress') throw conflict(MSG.recurringRunInProgress, 'schedule_run_in_progress');
    throw conflict(MSG.recurringNotActive, 'schedule_not_active');
  }
  return ok(200, 'Recurring run skipped', { scheduleId: r.schedule.scheduleId, skippedRunAt: r.skippedRunAt, nextBillingDate: r.schedule.nextBillingDate });
});
