import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG, notFound } from '../../platform/errors';
import { getTestClock, testClockView } from '../../sandbox/test-clock-store';

/** GET /v1/sandbox/test-clocks/{clockId} (merchant, sandbox only): the clock; `advancing` until an advance is done. */
export const handler = endpoint({ description: 'Read a test clock' }, async ({ params, principal }) => {
  const c = await getTestClock(principal.id, params.clockId ?? '');
  if (!c) throw notFound(SANDBOX_MSG.testClockNotFound);
  return ok(200, 'Test clock retrieved', testClockView(c));
});
