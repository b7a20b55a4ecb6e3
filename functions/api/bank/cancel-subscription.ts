import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { cancelSchedule } from '../../recurring/lifecycle-store';
import { nowIso } from '../../platform/table';

const bodySchema = z.strictObject({ reason: safeText(500, 0).nullable().optional() });

/**
 * POST /v1/bank/subscriptions/{scheduleId}/cancel (bank, for its customer; DESIGN 8.5):
 * cancelled from any state, with `schedule.cancelled` (`actor: "bank"`, the reason) to the
 * merchant in the same transaction. Cancelling again answers 200 with the first
 * `cancelledAt`. Unknown or another bank's customer's -> 404.
 */
export const handler = endpoint({ body: bodySchema, description: "Cancel a customer's schedule" }, async ({ body, params, principal }) => {
  const r = await cancelSchedule({ party: { bankId: principal.id }, reason: body.reason || null }, params.scheduleId ?? '', nowIso());
  if (!r.ok) throw notFound(MSG.recurringNotFound);
  return ok(200, 'Recurring schedule cancelled', {
    scheduleId: r.schedule.scheduleId,
    status: 'cancelled',
    cancelledAt: r.schedule.cancelledAt,
  });
});
