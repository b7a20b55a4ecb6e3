import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { cancelSchedule } from '../../recurring/lifecycle-store';
import { nowIso } from '../../platform/table';

/**
 * DELETE /v1/recurring/{scheduleId} (merchant): cancelled from any state, with
 * `schedule.cancelled` in the same transaction. Cancelling again answers 200 with the first
 * `cancelledAt` (and emits nothing). Unknown or another merchant's -> 404.
 */
export const handler = endpoint({ description: 'Cancel a schedule' }, async ({ params, principal }) => {
  const r = await cancelSchedule({ party: { merchantId: principal.id } }, params.scheduleId ?? '', nowIso());
  if (!r.ok) throw notFound(MSG.recurringNotFound);
  return ok(200, 'Recurring schedule cancelled', {
    scheduleId: r.schedule.scheduleId,
    status: 'cancelled',
    cancelledAt: r.schedule.cancelledAt,
  });
});
