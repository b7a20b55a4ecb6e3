import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getMerchantSchedule, scheduleRecord } from '../../recurring/views';

/**
 * GET /v1/recurring/{scheduleId} (merchant): every field of the spec's Recurring schedule,
 * plus entityId, metadata and the lifecycle stamps. Unknown or another merchant's -> 404.
 */
export const handler = endpoint({ description: 'Read a schedule' }, async ({ params, principal }) => {
  const s = await getMerchantSchedule(principal.id, params.scheduleId ?? '');
  if (!s) throw notFound(MSG.recurringNotFound);
  return ok(200, 'Recurring schedule retrieved', scheduleRecord(s));
});
