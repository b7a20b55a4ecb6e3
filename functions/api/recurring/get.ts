import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getMerchantSchedule, scheduleRecord } from '../../recurring/views';
import { runBillingRequestId } from '../../billing/bill-item';
import { billKey, type BillItem } from '../../bills/types';
import { customerNames } from '../../customers/views';
import { batchGet } from '../../platform/table';
import { toTransactions } from '../../transactions/store';

/** The runs a schedule's read shows: its latest. */
export const RUNS_SHOWN = 20;

/**
 * GET /v1/recurring/{scheduleId} (merchant): every field of the spec's Recurring schedule,
 * plus entityId, metadata and the lifecycle stamps, the customer's name and e-mail, and its
 * latest runs' transactions (`runs`, newest first: a run's billing request id derives from
 * (schedule, run number), so they are one BatchGetItem, no index). Unknown or another
 * merchant's -> 404.
 */
export const handler = endpoint({ description: 'Read a schedule' }, async ({ params, principal }) => {
  const s = await getMerchantSchedule(principal.id, params.scheduleId ?? '');
  if (!s) throw notFound(MSG.recurringNotFound);
  // Runs 1..seq (seq: the next run, or the one in flight); a run refused before billing has none.
  const seqs = Array.from({ length: Math.min(s.seq, RUNS_SHOWN) }, (_, i) => s.seq - i);
  const [bills, customers] = await Promise.all([
    batchGet<BillItem>(seqs.map((n) => billKey(runBillingRequestId(s.scheduleId, n)))),
    customerNames([s.customerId]),
  ]);
  const runs = [...bills.values()].filter((b) => b.scheduleId === s.scheduleId).sort((a, b) => (b.runSeq ?? 0) - (a.runSeq ?? 0));
  return ok(200, 'Recurring schedule retrieved', {
    ...scheduleRecord(s),
    customer: customers.get(s.customerId) ?? null,
    runs: await toTransactions(runs),
  });
});
