import { defineConfig } from 'vitest/config';
import { ARTIFACTS_FILES, PARITY_FILES, TIMED_FILES } from './test/projects.ts';

/**
 * The projects (docs/decisions/test-projects.md). Every integration flow runs once: in-process
 * (`integration`) or from the built bundles (`artifacts`), as test/projects.ts assigns it; the
 * deploy-parity check (`artifacts-parity`) runs after them and fails if the artifacts files no
 * longer run every function. Files timed against DESIGN's local bounds (`timed`) run last, one
 * at a time, so what they time is the stack, not the other files sharing the 2 cores.
 *
 * The projects on the local stack share one set of services (test/support/global-setup.ts):
 * one SQS emulator, one Cognito emulator and one DynamoDB Local per worker slot, fresh for
 * each file.
 */
const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'SILENT';

/** What every project on the local stack shares: its services, the Lagos day, forks. */
const LOCAL_STACK = {
  environment: 'node',
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/lagos-day.ts'],
  // A stack that hangs still fails; a loaded 2-core machine runs the heavier flows past a minute.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
  env: { LOG_LEVEL },
};

/** Each function's recorded invocations (test/support/invocations.ts), read by the parity check. */
const INVOCATIONS_DIR = 'test-results/invocations';

/**
 * `npm run coverage` (IDPAY_COVERAGE=1): every flow in the test's process, where V8 sees the
 * handlers' code (artifacts mode runs minified bundles in worker threads it does not see), and
 * no parity check (nothing then runs from the bundles).
 */
const COVERAGE = process.env.IDPAY_COVERAGE === '1';

export default defineConfig({
  test: {
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
    // Two files at a time on the 2-core machine (each runs its own stack and DynamoDB Local).
    maxWorkers: 2,
    coverage: {
      // npm run coverage: line and branch coverage of functions/ (docs/decisions/test-projects.md
      // says what it cannot see: the bundles artifacts mode runs in worker threads).
      provider: 'v8',
      include: ['functions/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'test-results/coverage',
    },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Pure rules run in milliseconds; a loaded machine still parses the sources for the
          // architecture checks and builds bundles for the stack-map test.
          testTimeout: 60_000,
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
          testTimeout: 60_000,
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
          exclude: [...TIMED_FILES, ...ARTIFACTS_FILES],
        },
      },
      {
        test: {
          ...LOCAL_STACK,
          // Artifacts mode: the functions' built bundles (synthesized first, or reused when
          // fresh: test/support/artifacts-setup.ts), each in its own worker threads, under the
          // template's environment and IAM policies (local/artifacts/). Functions take up to
          // 4x their timeout on a loaded machine.
          name: 'artifacts',
          include: ARTIFACTS_FILES,
          globalSetup: ['test/support/artifacts-setup.ts', 'test/support/global-setup.ts'],
          env: COVERAGE
            ? { LOG_LEVEL, LOCAL_ARTIFACTS: '0' }
            : {
                LOG_LEVEL,
                LOCAL_ARTIFACTS: '1',
                LOCAL_ARTIFACTS_QUIET: '1',
                LOCAL_ARTIFACTS_SYNTH: 'reuse',
                LOCAL_ARTIFACTS_TIMEOUT_FACTOR: '4',
                // Instances live for the file (each bundle loads once per file, not after every pause of a minute).
                LOCAL_ARTIFACTS_IDLE_SECONDS: '900',
                IDPAY_INVOCATIONS_DIR: INVOCATIONS_DIR,
              },
        },
      },
      ...(COVERAGE
        ? []
        : [
            {
              test: {
                name: 'artifacts-parity',
                include: PARITY_FILES,
                environment: 'node',
                env: { IDPAY_INVOCATIONS_DIR: INVOCATIONS_DIR },
                sequence: { groupOrder: 1 },
              },
            },
          ]),
      {
        test: {
          ...LOCAL_STACK,
          name: 'timed',
          include: TIMED_FILES,
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
          exclude: TIMED_FILES,
        },
      },
    ],
  },
});
