import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';
import { resumeSchedule } from '../../recurring/lifecycle-store';
import { nowIso } from '../../platform/table';

const bodySchema = z.strictObject({ reason: safeText(500, 0).nullable().optional() });

/**
 * POST /v1/recurring/{scheduleId}/resume (merchant): paused -> active, with
 * `schedule.resumed` in the same transaction. nextBillingDate is recomputed from the anchor:
 * the first occurrence after now that was not handled yet (missed periods are SKIPPED,
 * never billed late; never in the past). Not paused -> 409 `Recurring schedule is not
 * paused`; unknown or another merchant's -> 404. `reason`, when given, is carried by the event.
 */
export const handler = endpoint({ body: bodySchema, description: 'Resume a schedule' }, async ({ body, params, principal }) => {
  const r = await resumeSchedule(principal.id, params.scheduleId ?? '', nowIso(), body.reason);
  if (!r.ok) {
    if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
    throw conflict(MSG.recurringNotPaused);
  }
  const s = r.schedule;
  return ok(200, 'Recurring schedule resumed', {
    scheduleId: s.scheduleId,
    status: s.status,
    resumedAt: s.resumedAt,
    nextBillingDate: s.nextBillingDate,
  });
});
