import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';
import { skipNextRun } from '../../recurring/lifecycle-store';
import type { ScheduleParty } from '../../recurring/views';
import { nowIso } from '../../platform/table';

const bodySchema = z.strictObject({ reason: safeText(500, 0).nullable().optional() });

/**
 * Skip the next run, as the schedule's merchant (`POST /v1/recurring/{scheduleId}/skip`, DESIGN
 * 8.6) or as its customer's bank (`POST /v1/bank/subscriptions/{scheduleId}/skip`, DESIGN 8.5):
 * the next run is not billed; the merchant gets `schedule.run_skipped` with the actor and the
 * reason. Not active -> 409 `Recurring schedule is not active`; a run already at the bank ->
 * 409; unknown or another party's -> 404.
 */
export const skipEndpoint = (partyOf: (principalId: string) => ScheduleParty) =>
  endpoint({ body: bodySchema, description: 'Skip the next run of a schedule' }, async ({ body, params, principal }) => {
    const r = await skipNextRun({ party: partyOf(principal.id), reason: body.reason || null }, params.scheduleId ?? '', nowIso());
    if (!r.ok) {
      if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
      if (r.reason === 'run_in_progress') throw conflict(MSG.recurringRunInProgress);
      throw conflict(MSG.recurringNotActive);
    }
    return ok(200, 'Recurring run skipped', {
      scheduleId: r.schedule.scheduleId,
      skippedRunAt: r.skippedRunAt,
      nextBillingDate: r.schedule.nextBillingDate,
    });
  });

export const handler = skipEndpoint((merchantId) => ({ merchantId }));
