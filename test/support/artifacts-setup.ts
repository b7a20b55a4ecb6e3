/**
 * Artifacts-mode test runs (project `artifacts`): the cloud assemblies of both stages,
 * synthesized once before any file starts (or reused when fresh; see
 * local/artifacts/assembly.ts), so no test waits on a synth or races another file's. The
 * run's invocation records (test/support/invocations.ts) start empty.
 */
import { rmSync } from 'node:fs';
import { ensureAssembly } from '../../local/artifacts/assembly';
import { ensureDashboardBuilt } from '../../local/dashboard';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject) {
  const records = project.config.env?.IDPAY_INVOCATIONS_DIR;
  if (records) rmSync(records, { recursive: true, force: true });
  // The synth copies dashboard/dist into the assembly: build it first (under the build lock), so
  // no other project's setup rebuilds it while the synth reads it.
  ensureDashboardBuilt();
  for (const stage of ['sandbox', 'live'] as const) {
    const r = await ensureAssembly(stage, (s) => console.log(s));
    if (!r.synthesized) console.log(`artifacts: reusing ${r.dir} (sources unchanged since its synth)`);
  }
}
