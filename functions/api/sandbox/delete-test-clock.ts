import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG, notFound } from '../../platform/errors';
import { deleteTestClock } from '../../sandbox/test-clock-delete';

/**
 * DELETE /v1/sandbox/test-clocks/{clockId} (DESIGN 8.7, 9.2) -> 200, also while the clock is
 * advancing: the advance stops, and after the 200 nothing created under the clock bills,
 * notifies or settles again (sandbox/test-clock-delete.ts): its schedules end as `cancelled`
 * (actor `system`, reason `test_clock_deleted`; the `run` helper on them is then 409 `Recurring
 * schedule is not active`), its billings still awaiting a bank fail. A request naming the
 * clock is then 404 `Test clock not found`. Unknown or another merchant's: 404.
 */
export const handler = endpoint({ description: 'Delete a test clock' }, async ({ params, principal }) => {
  if (!(await deleteTestClock(principal.id, params.clockId ?? ''))) throw notFound(SANDBOX_MSG.testClockNotFound);
  return ok(200, 'Test clock deleted', { clockId: params.clockId, deleted: true });
});
