/**
 * The cloud assembly artifacts mode runs: `cdk.out.<stage>/` in the project root, synthesized
 * with `cdk synth -c stage=<stage>` when missing or stale, reused otherwise.
 *
 * Freshness is a content fingerprint, not a timestamp: SHA-256 over every file the synth
 * reads (functions/, lib/, bin/, cdk.json, package-lock.json, tsconfig.json) plus the stage,
 * written to `<dir>/idpay-synth.json` after a successful synth. A checkout or rebase that
 * changes no byte reuses the bundles; any edit re-synthesizes. Concurrent callers (several
 * test projects' global setups) serialize on a lock directory, so one synth serves all.
 *
 * The directory lives under the project root so a bundle's runtime-provided modules
 * (lib/lambda.ts RUNTIME_PROVIDED_MODULES, e.g. @aws-sdk/client-secrets-manager, which the
 * Lambda runtime supplies) resolve from the project's node_modules, like the runtime's.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const SOURCES = ['functions', 'lib', 'bin', 'cdk.json', 'package-lock.json', 'tsconfig.json'];
const STAMP = 'idpay-synth.json';

export type StageName = 'sandbox' | 'live';

/** Where the assembly of a stage lives. */
export function assemblyDir(stage: StageName): string {
  return join(PROJECT_ROOT, `cdk.out.${stage}`);
}

function files(path: string, out: string[]): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const e of readdirSync(path).sort()) files(join(path, e), out);
  } else out.push(path);
}

/** Fingerprint of everything the synth of `stage` reads, its runtime settings included. */
export function sourceFingerprint(stage: StageName, runtime: Record<string, string> = {}): string {
  const h = createHash('sha256').update(`stage=${stage}\n`);
  for (const k of Object.keys(runtime).sort()) h.update(`${k}=${runtime[k]}\n`);
  const all: string[] = [];
  for (const s of SOURCES) files(join(PROJECT_ROOT, s), all);
  for (const f of all) {
    h.update(`${relative(PROJECT_ROOT, f)}\n`);
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

export function isFresh(dir: string, fingerprint: string): boolean {
  const stamp = join(dir, STAMP);
  if (!existsSync(stamp) || !existsSync(join(dir, 'manifest.json'))) return false;
  try {
    return (JSON.parse(readFileSync(stamp, 'utf8')) as { fingerprint?: string }).fingerprint === fingerprint;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', (d) => (err = (err + String(d)).slice(-4000)));
    child.on('error', rej);
    child.on('exit', (code) => (code === 0 ? res() : rej(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${err}`))));
  });
}

async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than the longest synth is left over from a killed run.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface EnsuredAssembly {
  dir: string;
  synthesized: boolean;
  ms: number;
}

/**
 * The stage's assembly, synthesized first if missing or stale. LOCAL_ARTIFACTS_SYNTH=always
 * forces a synth; =reuse takes any existing assembly as is (set for test workers, after the
 * global setup made it fresh). `runtime`: deploy-time settings (lib/settings.ts
 * RUNTIME_SETTINGS), synthesized as `-c NAME=value` exactly as `cdk deploy` would take them.
 */
export async function ensureAssembly(
  stage: StageName,
  log: (s: string) => void = () => undefined,
  runtime: Record<string, string> = {},
): Promise<EnsuredAssembly> {
  const dir = assemblyDir(stage);
  const started = Date.now();
  // Test workers: the run's global setup already ensured a fresh assembly (no re-hashing per file).
  if (process.env.LOCAL_ARTIFACTS_SYNTH === 'reuse' && existsSync(join(dir, 'manifest.json'))) {
    return { dir, synthesized: false, ms: 0 };
  }
  return withLock(dir, async () => {
    const fingerprint = sourceFingerprint(stage, runtime);
    if (process.env.LOCAL_ARTIFACTS_SYNTH !== 'always' && isFresh(dir, fingerprint)) {
      return { dir, synthesized: false, ms: Date.now() - started };
    }
    log(`artifacts: synthesizing ${stage} into ${relative(PROJECT_ROOT, dir) || dir} (cdk synth, bundles every function)...`);
    rmSync(dir, { recursive: true, force: true });
    const cdk = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
    const context = Object.entries(runtime).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
    await run(cdk, ['synth', '--quiet', '-o', dir, '-c', `stage=${stage}`, ...context]);
    writeFileSync(join(dir, STAMP), JSON.stringify({ fingerprint, stage, runtime, at: new Date().toISOString() }, null, 2));
    const ms = Date.now() - started;
    log(`artifacts: ${stage} synthesized in ${(ms / 1000).toFixed(1)} s`);
    return { dir, synthesized: true, ms };
  });
}
