import { clockNow } from '../../platform/clock';
import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { conflict, MSG, notFound, SANDBOX_MSG } from '../../platform/errors';
import { makeNextRunDueNow } from '../../recurring/lifecycle-store';
import { scheduleRecord } from '../../recurring/views';

/**
 * POST /v1/sandbox/recurring/{scheduleId}/run (merchant or provider with X-Entity-Id; sandbox
 * only): the schedule's next run is due now (functions/recurring/lifecycle-store.ts); the tick starts
 * it (every second locally) like any run. Not the caller's (or unknown): 404 `Recurring
 * schedule not found`; paused, cancelled or completed: 409 `Recurring schedule is not
 * active`; a run already at the bank: 409. Parallel calls: each 200 (already due is done),
 * or 409 `Sandbox helper lost a race with a concurrent request; retry` under heavy contention.
 */
export const handler = endpoint(
  { body: z.strictObject({}), description: "Make your schedule's next run due now; the scheduler tick runs it." },
  async ({ params, principal }) => {
    const r = await makeNextRunDueNow(principal.id, params.scheduleId ?? '', clockNow());
    if (!r.ok) {
      if (r.reason === 'not_found') throw notFound(MSG.recurringNotFound);
      if (r.reason === 'not_active') throw conflict(MSG.recurringNotActive);
      if (r.reason === 'contention') throw conflict(SANDBOX_MSG.raceLost);
      throw conflict(SANDBOX_MSG.recurringRunInProgress);
    }
    return ok(200, SANDBOX_MSG.recurringRunDue, scheduleRecord(r.schedule));
  },
);
