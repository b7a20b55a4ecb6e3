/**
 * THE table of due kinds (the time path's counterpart of functions/routes.ts): every kind an
 * item on the due index may carry, and the feature function that runs a claimed item of that
 * kind (functions/workers/jobs.ts dispatches from here). A new kind is one line here; its
 * worker function lives in its feature's folder.
 */
import { DUE_CLAIM_KIND, runClaimJob, type DueHandler } from '../platform/due';
import { EXPIRY_KIND } from '../billing/bill-item';
import { expireDueBilling } from '../billing/expiry';
import { RECOVERY_KIND } from '../webhooks/delivery-store';
import { SETTLEMENT_KIND } from '../ledger/store';
import { runSettlement, runSettlementLinesJob } from '../ledger/settlement';
import { SETTLEMENT_LINES_KIND } from '../ledger/settlement-store';
import { EXPORT_RUN_KIND } from '../exports/store';
import { runExport } from '../exports/run';
import { RECURRING_RUN_KIND } from '../recurring/policy';
import { runRecurring } from '../billing/recurring-run';
import { completeDueRefund } from '../refunds/complete';
import { REFUND_COMPLETE_KIND } from '../refunds/views';
import { runSandboxBank } from '../sandbox/bank-worker';
import { SANDBOX_BANK_KIND } from '../events/sandbox-bank';
import { advanceTestClock } from '../sandbox/test-clocks';
import { TEST_CLOCK_KIND } from '../sandbox/test-clock-store';
import { recoverDelivery } from '../webhooks/recovery';
import { VALIDITY_KIND } from '../decisions/store';
import { expireValidity } from '../decisions/validity';
import { runDisputeExpiry } from '../disputes/expiry';
import { DISPUTE_EXPIRY_KIND } from '../disputes/views';

export interface DueKind {
  /** The `<kind>` in `dueSk` (`<ISO>#<kind>#<id>`). */
  kind: string;
  run: DueHandler;
  summary: string;
}

export const DUE_KINDS: DueKind[] = [
  { kind: DUE_CLAIM_KIND, run: runClaimJob, summary: "Claim a busy due shard's items (the tick's fan-out: one claim job per shard)" },
  { kind: RECOVERY_KIND, run: recoverDelivery, summary: 'Re-enqueue an overdue webhook delivery whose message was lost' },
  { kind: EXPIRY_KIND, run: expireDueBilling, summary: 'Expire a billing whose approval window has passed' },
  { kind: SETTLEMENT_KIND, run: runSettlement, summary: "Settle a merchant's due funds (one entry per merchant-day)" },
  {
    kind: SETTLEMENT_LINES_KIND,
    run: runSettlementLinesJob,
    summary: 'Retired: take a settlement record committed before release 3 off the due index',
  },
  { kind: EXPORT_RUN_KIND, run: runExport, summary: 'Write an export (CSV) to S3' },
  { kind: REFUND_COMPLETE_KIND, run: completeDueRefund, summary: 'Complete a sandbox refund (simulated bank)' },
  { kind: RECURRING_RUN_KIND, run: runRecurring, summary: "Run a recurring schedule's due billing (after the bank's pre-debit notice)" },
  { kind: DISPUTE_EXPIRY_KIND, run: runDisputeExpiry, summary: 'Close a dispute the merchant did not answer by respondBy (lost)' },
  { kind: VALIDITY_KIND, run: expireValidity, summary: "Record the end of a decision's validity in its history" },
  { kind: SANDBOX_BANK_KIND, run: async (job) => void (await runSandboxBank(job)), summary: 'Answer as a simulated bank (sandbox)' },
  {
    kind: TEST_CLOCK_KIND,
    run: (job) => advanceTestClock(job, dueKind),
    summary: "One bounded step of a test clock's advance: its due items in due order (sandbox)",
  },
];

const byKind = new Map(DUE_KINDS.map((k) => [k.kind, k.run]));

export function dueKind(kind: string): DueHandler | undefined {
  return byKind.get(kind);
}
