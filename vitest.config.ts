import { defineConfig } from 'vitest/config';

/**
 * Tests that time the local stack against DESIGN's local bounds (a webhook within 1 s of its
 * commit, an expiry within a tick plus 1 s, a fair first attempt) and the consumer-crash
 * fault run. They run after every other project, one file at a time (sequence.groupOrder), so
 * what they time is the stack, not the other test files sharing the machine's 2 cores.
 */
const ARTIFACTS_ENV = {
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT',
  LOCAL_ARTIFACTS: '1',
  LOCAL_ARTIFACTS_QUIET: '1',
  LOCAL_ARTIFACTS_SYNTH: 'reuse',
  LOCAL_ARTIFACTS_TIMEOUT_FACTOR: '4',
};

const TIMED = [
  'test/integration/event-stream.test.ts',
  'test/integration/webhook-fairness.test.ts',
  'test/integration/billing-expiry-timing.test.ts',
];

/** What every project on the local stack shares: its services, the Lagos day, forks. */
const LOCAL_STACK = {
  environment: 'node',
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/lagos-day.ts'],
  // A loaded 2-core machine runs the heavier flows (racing settlements, fault injection)
  // past a minute; a stack that hangs still fails.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  maxWorkers: 2,
};

/** Artifacts mode: the synthesized assemblies first; functions take up to 4x their timeout. */
const ARTIFACTS = {
  ...LOCAL_STACK,
  env: ARTIFACTS_ENV,
  globalSetup: ['test/support/artifacts-setup.ts', 'test/support/global-setup.ts'],
  testTimeout: 180_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  test: {
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          env: { LOG_LEVEL: 'SILENT' },
        },
      },
      {
        test: {
          // The OpenAPI documents, the docs page and the SDK's generated types: each check
          // imports every handler or runs the document tools (tens of seconds), so they stay
          // out of `unit`, which runs in seconds. `npm test` runs every project.
          name: 'docs',
          include: ['test/docs/**/*.test.ts'],
          environment: 'node',
          env: { LOG_LEVEL: 'SILENT' },
        },
      },
      {
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          ...LOCAL_STACK,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: TIMED,
          env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT' },
        },
      },
      {
        test: {
          ...LOCAL_STACK,
          name: 'integration-timed',
          include: TIMED,
          env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT' },
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...ARTIFACTS,
          // The integration flows again in artifacts mode: each function from its
          // built bundle, in its own worker threads, under the template's environment and IAM
          // policies (local/artifacts/). Plus the tests of artifacts mode itself.
          name: 'integration-artifacts',
          include: ['test/integration/**/*.test.ts', 'test/artifacts/**/*.test.ts'],
          // These reach into the handlers' process, which a built bundle in its own thread is
          // not: tick and tick-ops register a test-only due kind into the jobs worker's module
          // state; secrets counts the in-process SDK client's requests and captures the
          // in-process console; sdk-client injects a failure into the in-process DynamoDB
          // client. They run in `integration`; the tick of artifacts mode is covered by the
          // flows that expire, settle and recur through it.
          exclude: [
            'test/integration/tick.test.ts',
            'test/integration/tick-ops.test.ts',
            'test/integration/secrets.test.ts',
            'test/integration/sdk-client.test.ts',
            // Counts the requests of the in-process DynamoDB client (DESIGN 9.1's auth cost).
            'test/integration/request-cost.test.ts',
            // Reads the EMF lines and log lines of the handlers' process (platform/metrics.ts
            // onMetricsLine, the console); built bundles print theirs in their own threads.
            'test/integration/observability.test.ts',
            // The dashboard in a browser: its API calls are the flows above, already run here;
            // what it adds (pages, a11y, the static app) does not depend on how handlers run.
            // Every dashboard file (each 200-300 s of a loaded machine): the CI run's 90 minutes
            // cannot hold them twice.
            'test/integration/dashboard.test.ts',
            'test/integration/dashboard-live.test.ts',
            'test/integration/dashboard-access.test.ts',
            'test/integration/dashboard-disputes.test.ts',
            'test/integration/dashboard-finding.test.ts',
            'test/integration/dashboard-lists.test.ts',
            // The SDK as an integrator installs it (npm pack, installs, tsc --strict; ~100 s): what
            // it adds is the package, not how handlers run; its calls are flows run here.
            'test/integration/sdk-package.test.ts',
            // A latency bound of the local runtime (DESIGN 8.1 "locally"): it runs in the
            // integration project. Here each bundle's worker threads start on demand, and
            // those cold starts land in the API call it times (seen: 1021 ms from the request,
            // 553 ms from the commit).
            'test/integration/webhook-fairness.test.ts',
            // A test clock advanced a year (~3 minutes of sequential jobs): once is enough; the
            // clock's path in artifacts mode is covered by test-clocks.test.ts.
            'test/integration/test-clocks-year.test.ts',
            // Artifacts mode's AWS gateway emulates DynamoDB and SQS under the template's IAM
            // policies; it has no S3 yet, so the export job cannot write its file there. The
            // exports run in `integration` (fauxqs S3); the bucket and its grants are checked
            // in test/cdk.
            'test/integration/exports.test.ts',
            // Timed: after the others, alone (integration-artifacts-timed).
            ...TIMED,
          ],
        },
      },
      {
        test: {
          ...ARTIFACTS,
          name: 'integration-artifacts-timed',
          include: TIMED.filter((f) => !f.endsWith('webhook-fairness.test.ts')),
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          // Reliability suite: fuzzing, isolation matrix, fault injection, concurrency.
          // The long form: RELIABILITY_LONG=1 (npm run test:reliability).
          ...LOCAL_STACK,
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          env: { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'SILENT' },
        },
      },
    ],
  },
});
