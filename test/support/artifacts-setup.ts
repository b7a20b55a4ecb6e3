/**
 * Artifacts-mode test runs (project integration-artifacts): the cloud assemblies of both
 * stages, synthesized once before any file starts (or reused when fresh; see
 * local/artifacts/assembly.ts), so no test waits on a synth or races another file's.
 */
import { ensureAssembly } from '../../local/artifacts/assembly';
import { ensureDashboardBuilt } from '../../local/dashboard';

export default async function setup() {
  // The synth copies dashboard/dist into the assembly: build it first (under the build lock), so
  // no other project's setup rebuilds it while the synth reads it.
  ensureDashboardBuilt();
  for (const stage of ['sandbox', 'live'] as const) {
    const r = await ensureAssembly(stage, (s) => console.log(s));
    if (!r.synthesized) console.log(`artifacts: reusing ${r.dir} (sources unchanged since its synth)`);
  }
}
