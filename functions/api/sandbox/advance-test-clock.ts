import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, SANDBOX_MSG, badRequest, conflict, notFound } from '../../platform/errors';
import { advanceLimit, getTestClock, MAX_ADVANCE_YEARS, startAdvance, testClockView } from '../../sandbox/test-clock-store';
import { clockTime } from './create-test-clock';

const bodySchema = z.strictObject({ frozenTime: clockTime });

/**
 * POST /v1/sandbox/test-clocks/{clockId}/advance {frozenTime} (DESIGN 8.7) -> 202 `{status:
 * "advancing"}`: everything tied to the clock that falls due up to `frozenTime` runs, in due
 * order, through the normal workers; the clock is `ready` at `frozenTime` when done. Forward
 * only, at most 2 years a call (400); already advancing: 409.
 */
export const handler = endpoint({ body: bodySchema, description: 'Advance a test clock' }, async ({ body, params, principal }) => {
  const c = await getTestClock(principal.id, params.clockId ?? '');
  if (!c) throw notFound(SANDBOX_MSG.testClockNotFound);
  if (body.frozenTime <= c.frozenTime)
    throw badRequest(MSG.invalidRequest, [{ path: 'frozenTime', message: "must be after the clock's time (forward only)" }]);
  if (body.frozenTime > advanceLimit(new Date(c.frozenTime)).toISOString()) {
    throw badRequest(MSG.invalidRequest, [
      { path: 'frozenTime', message: `at most ${MAX_ADVANCE_YEARS} years ahead of the clock's time in one call` },
    ]);
  }
  const advancing = await startAdvance(c, body.frozenTime);
  if (!advancing) throw conflict(SANDBOX_MSG.testClockAdvancing);
  return ok(202, 'Test clock advancing', testClockView(advancing));
});
