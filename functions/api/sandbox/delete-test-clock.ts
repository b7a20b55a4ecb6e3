import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG, notFound } from '../../platform/errors';
import { deleteTestClock } from '../../sandbox/test-clock-store';

/**
 * DELETE /v1/sandbox/test-clocks/{clockId} (DESIGN 8.7) -> 200. What was tied to the clock stays
 * as it is and never runs again (its due entries are on the clock's partition, which nothing
 * reads any more); a request naming the clock is then 404 `Test clock not found`.
 */
export const handler = endpoint({ description: 'Delete a test clock' }, async ({ params, principal }) => {
  if (!(await deleteTestClock(principal.id, params.clockId ?? ''))) throw notFound(SANDBOX_MSG.testClockNotFound);
  return ok(200, 'Test clock deleted', { clockId: params.clockId, deleted: true });
});
