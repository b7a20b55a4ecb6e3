/**
 * Which test files run in which vitest project (vitest.config.ts), in one place: the config
 * and the deploy-parity check (test/artifacts/parity.test.ts) read it.
 *
 * Each integration flow runs once (DESIGN 10.1), in one of two modes:
 * - `integration`: the handler modules in the test's process (fast to start; the tests may
 *   reach into that process: fault injection, registered due kinds, counted SDK requests,
 *   captured log lines);
 * - `artifacts`: the built bundles, each in worker threads of its own, under the synthesized
 *   template's environment and IAM policies (local/artifacts/). These files were chosen so
 *   that together they run every function of the app and both stages' templates (the parity
 *   check fails otherwise, naming what no file ran), favouring the flows that pass through
 *   many functions; docs/decisions/test-projects.md says why each kind of file runs where.
 */
import { globSync } from 'node:fs';

/**
 * Measured against DESIGN's local bounds: after every other file, one at a time, so that what
 * they measure is the stack, not the other files sharing the 2 cores. The three timed ones, and
 * the two long single flows that alone keep within 120 s but beside other files did not or
 * nearly did: the 100,000-row export (its memory; DynamoDB Local writing and reading 200,000-odd
 * items is nearly all of it) and a test clock's year of daily billings (365 bills, their bank
 * answers and settlements: ~55 s alone, 93-125 s beside the other integration files).
 */
export const TIMED_FILES = [
  'test/integration/event-stream-latency.test.ts',
  'test/integration/webhook-fairness.test.ts',
  'test/integration/billing-expiry-timing.test.ts',
  'test/reliability/export-100k.test.ts',
  'test/integration/test-clocks-year.test.ts',
];

/** Integration flows that run from the built bundles (and the tests of artifacts mode itself). */
export const ARTIFACTS_FILES = [
  'test/artifacts/iam.test.ts',
  'test/artifacts/restart.test.ts',
  'test/integration/billing.test.ts',
  'test/integration/consent-terms.test.ts',
  'test/integration/customer-protection.test.ts',
  'test/integration/discovery.test.ts',
  'test/integration/disputes.test.ts',
  'test/integration/events-api.test.ts',
  'test/integration/exports.test.ts',
  'test/integration/finding.test.ts',
  'test/integration/list-paging.test.ts',
  'test/integration/ops-deliveries.test.ts',
  'test/integration/people-keys-live.test.ts',
  'test/integration/people-live.test.ts',
  'test/integration/people-sessions.test.ts',
  'test/integration/people.test.ts',
  'test/integration/platform.test.ts',
  'test/integration/provider-merchants.test.ts',
  'test/integration/provider-trust.test.ts',
  'test/integration/reconciliation-reports.test.ts',
  'test/integration/refund-response.test.ts',
  'test/integration/refunds.test.ts',
  'test/integration/retry-policy.test.ts',
  'test/integration/sandbox-disputes.test.ts',
  'test/integration/sandbox.test.ts',
  'test/integration/test-clocks.test.ts',
  'test/integration/webhooks-live.test.ts',
];

/** The deploy-parity check: after every file of `artifacts`. */
export const PARITY_FILES = ['test/artifacts/parity.test.ts'];

/** The files a list of paths and globs names, relative to the project root, sorted. */
export function projectFiles(patterns: readonly string[]): string[] {
  return [...new Set(patterns.flatMap((p) => globSync(p)))].sort();
}
