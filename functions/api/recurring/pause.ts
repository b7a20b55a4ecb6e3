import * as z from 'zod';
import { safeText } from '../../http/schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, notFound } from '../../platform/errors';
import { pauseSchedule } from '../../recurring/lifecycle-store';
import { nowIso } from '../../platform/table';

const bodySchema = z.strictObject({
  reason: safeText(500, 0).nullable().optional(),
  /** DESIGN 8.6: the schedule resumes by itself at this time (in the future). */
  resumesAt: z.iso
    .datetime({ offset: true })
    .transform((v) => new Date(v).toISOString())
    .nullable()
    .optional(),
});

/**
 * POST /v1/recurring/{scheduleId}/pause (merchant): active (or processing: a run at the bank)
 * -> paused, with `schedule.paused` in the same transaction. A run already at the bank is
 * not withdrawn: its outcome still counts, and no further run starts until resumed.
 * With `resumesAt` (DESIGN 8.6; must be in the future, else 400) the schedule resumes by itself
 * then (`schedule.resumed`, actor system); a manual resume first cancels that.
 * Not active -> 409 `Recurring schedule is not active`; unknown or another merchant's -> 404.
 */
export const handler = endpoint({ body: bodySchema, description: 'Pause a schedule' }, async ({ body, params, principal }) => {
  const now = nowIso();
  if (body.resumesAt && Date.parse(body.resumesAt) <= Date.parse(now)) {
    throw badRequest(MSG.invalidRequest, [{ path: 'resumesAt', message: 'must be in the future' }]);
  }
  const r = await pauseSchedule(principal.id, params.scheduleId ?? '', body.reason || null, now, body.resumesAt ?? null);
  if (!r.ok) {
    if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
    throw conflict(MSG.recurringNotActive);
  }
  return ok(200, 'Recurring schedule paused', {
    scheduleId: r.schedule.scheduleId,
    status: r.schedule.status,
    pausedAt: r.schedule.pausedAt,
    ...(r.schedule.resumesAt ? { resumesAt: r.schedule.resumesAt } : {}),
  });
});
