/**
 * Deploy parity, once (DESIGN 10.1): every function of the app runs in this suite from its
 * built bundle under the template's environment and IAM (artifacts mode) at least once, in a
 * flow that exercises it. The `artifacts` project runs its files with IDPAY_INVOCATIONS_DIR
 * set; each stack they stop records the functions it invoked (test/support/invocations.ts).
 * This file runs after them (project `artifacts-parity`, a later sequence group) and checks
 * that every file of the project recorded its stacks in this run and that, together, they
 * invoked every function of the sandbox assembly (the live assembly's functions are the same
 * logical ids less the sandbox-only routes: test/cdk checks that).
 */
import { describe, expect, it } from 'vitest';
import { assemblyDir } from '../../local/artifacts/assembly';
import { readModel } from '../../local/artifacts/template';
import { ARTIFACTS_FILES, projectFiles } from '../projects';
import { invocationsDir, readInvocations } from '../support/invocations';

/** A function's id in either stage's assembly: `Idpay-live-routes-admin/X` and `Idpay-sandbox-routes-admin/X` are one function. */
const functionKey = (id: string) => id.replace(/^Idpay-(sandbox|live)/, 'Idpay-<stage>');

/** The app's functions of a stage's assembly (not CDK's own custom-resource handlers). */
function appFunctions(stage: 'sandbox' | 'live'): { id: string; description: string }[] {
  const model = readModel(assemblyDir(stage), { region: 'us-east-1', tableName: 't', queuePrefix: 'q-', queueUrl: (n) => n });
  return model.functions
    .filter((f) => f.description.startsWith('idpay '))
    .map((f) => ({ id: functionKey(f.id), description: f.description }));
}

describe('deploy parity (DESIGN 10.1)', () => {
  const dir = invocationsDir();

  it('every flow file of the artifacts project recorded the functions it ran, in artifacts mode', () => {
    expect(dir, 'IDPAY_INVOCATIONS_DIR (set for the artifacts project in vitest.config.ts)').toBeDefined();
    const records = readInvocations(dir!);
    const recorded = new Set(records.map((r) => r.file));
    // The flows (test/artifacts/ holds the tests of artifacts mode itself, on assemblies they change).
    const flows = projectFiles(ARTIFACTS_FILES).filter((f) => f.startsWith('test/integration/'));
    const missing = flows.filter((f) => !recorded.has(f));
    expect(
      missing,
      `files without a record: run the whole artifacts project (npx vitest run --project artifacts --project artifacts-parity)`,
    ).toEqual([]);
    expect(records.filter((r) => r.mode !== 'artifacts').map((r) => r.file)).toEqual([]);
    // Both stages' templates run.
    expect(new Set(records.map((r) => r.stage))).toEqual(new Set(['sandbox', 'live']));
  });

  it('together they invoked every function of the app from its bundle', () => {
    const invoked = new Set(readInvocations(dir!).flatMap((r) => r.functions.map(functionKey)));
    const never = appFunctions('sandbox').filter((f) => !invoked.has(f.id));
    expect(never.map((f) => `${f.id}: ${f.description}`)).toEqual([]);
  });

  it('the live assembly has no function the sandbox assembly lacks (so the sandbox list is every function)', () => {
    const sandbox = new Set(appFunctions('sandbox').map((f) => f.id));
    expect(appFunctions('live').filter((f) => !sandbox.has(f.id))).toEqual([]);
  });
});
