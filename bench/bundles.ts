/**
 * Per Lambda: minified bundle size and cold module init time, under Node 24 (the runtime)
 * and Node 22.
 *
 * Every handler of the route table (sandbox stage: all routes), `$default` and every worker
 * is bundled with esbuild with the deploy's options (lib/lambda.ts LAMBDA_BUILD_OPTIONS: ESM, target node24,
 * platform node, minify, mainFields module/main, external = RUNTIME_PROVIDED_MODULES, the
 * createRequire banner, linked source map without sources content) into
 * node_modules/.cache/idpay-bench/bundles (inside the project, so the externals resolve
 * from node_modules as they do from the runtime's SDK on Lambda).
 *
 * Cold init = the time to `import()` the bundle in a fresh `node` process, measured inside
 * the child with performance.now() around the dynamic import, with the deployed
 * environment (no NODE_OPTIONS: the map is read on the first logged error only,
 * functions/platform/stack-map.ts); median of BENCH_INIT_RUNS (5). Node 22 comes from
 * `npx -y node@22` (the npm registry's node package); if it cannot be had, only 24 is measured.
 *
 *   npx tsx bench/bundles.ts
 */
import { build } from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAMBDA_BUILD_OPTIONS, PROJECT_ROOT } from '../lib/lambda';
import { NOT_FOUND_HANDLER, ROUTES, routeKey } from '../functions/routes';
import { WORKERS } from '../functions/platform/definitions';
import { machine, outPath, runMain, writeJson } from './lib/results';
import { median, round } from './lib/stats';

const QUICK = process.env.BENCH_QUICK === '1';
const INIT_RUNS = Number(process.env.BENCH_INIT_RUNS ?? (QUICK ? 3 : 5));
export const BUNDLE_LIMIT_BYTES = 400 * 1024;
export const INIT_LIMIT_MS = 150;
const CACHE = resolve(PROJECT_ROOT, 'node_modules/.cache/idpay-bench');
const OUT_DIR = join(CACHE, 'bundles');

export interface LambdaFunction {
  /** Module under functions/ */
  handler: string;
  /** Route key(s) or worker name. */
  what: string;
}

export function lambdaFunctions(): LambdaFunction[] {
  const byHandler = new Map<string, string[]>();
  for (const r of ROUTES) byHandler.set(r.handler, [...(byHandler.get(r.handler) ?? []), routeKey(r)]);
  byHandler.set(NOT_FOUND_HANDLER, ['$default']);
  for (const w of WORKERS) byHandler.set(w.handler, [...(byHandler.get(w.handler) ?? []), `worker ${w.name}`]);
  return [...byHandler.entries()].map(([handler, what]) => ({ handler, what: what.join(', ') }));
}

/** Absolute path of a Node 22 binary, or undefined (with the reason). */
export function node22(): { path?: string; version?: string; reason?: string } {
  try {
    const out = execFileSync('npx', ['-y', 'node@22', '-p', 'process.execPath + " " + process.version'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 180_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    const [path, version] = out.split('\n').pop()!.split(' ');
    if (!path || !version?.startsWith('v22.')) return { reason: `npx node@22 printed ${out.slice(0, 200)}` };
    return { path, version };
  } catch (e) {
    return { reason: `npx -y node@22 failed: ${(e as Error).message.slice(0, 300)}` };
  }
}

const PROBE = `const c0 = process.cpuUsage();
const t0 = performance.now();
await import(process.argv[2]);
const t1 = performance.now();
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ ms: t1 - t0, cpuMs: (c.user + c.system) / 1000 }));
`;

/** Lambda-like environment: configuration present, nothing reachable is called at import. */
function childEnv(fn: LambdaFunction): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_LAMBDA_FUNCTION_NAME: `idpay-bench-${fn.handler.replace(/\//g, '-')}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    STAGE: 'sandbox',
    TABLE_NAME: 'idpay-bench',
    QUEUE_URL_WEBHOOKS: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks',
    QUEUE_URL_JOBS: 'https://sqs.us-east-1.amazonaws.com/000000000000/jobs',
    QUEUE_URL_WEBHOOKS_DLQ: 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks-dlq',
    QUEUE_URL_JOBS_DLQ: 'https://sqs.us-east-1.amazonaws.com/000000000000/jobs-dlq',
    LOG_LEVEL: 'INFO',
  };
}

function initOnce(node: string, probe: string, bundle: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; cpuMs: number }> {
  return new Promise((resolveMs, reject) => {
    const child = spawn(node, [probe, pathToFileURL(bundle).href], { env, cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`exit ${code}: ${err.slice(0, 500)}`);
        resolveMs(JSON.parse(out) as { ms: number; cpuMs: number });
      } catch (e) {
        reject(new Error(`init of ${bundle} failed: ${(e as Error).message}`));
      }
    });
  });
}

export interface BundleResult {
  handler: string;
  what: string;
  bytes: number;
  kb: number;
  mapBytes: number;
  /** Median cold import time (ms, wall clock) per Node version (key = major version, e.g. "24"). */
  initMs: Record<string, number>;
  initRunsMs: Record<string, number[]>;
  /** Median CPU time (user + system, all threads) of the import: less sensitive to a loaded machine. */
  initCpuMs: Record<string, number>;
  underBundleLimit: boolean;
  underInitLimit: boolean;
}

/** esbuild's options for a function bundle, as lib/lambda.ts has CDK bundle it (test/unit/stack-map.test.ts builds with them too). */

export async function runBundles() {
  const fns = lambdaFunctions();
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const started = performance.now();
  await build({
    entryPoints: Object.fromEntries(fns.map((f) => [f.handler, join(PROJECT_ROOT, 'functions', `${f.handler}.ts`)])),
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    ...LAMBDA_BUILD_OPTIONS,
  });
  const buildMs = Math.round(performance.now() - started);
  const probe = join(CACHE, 'init-probe.mjs');
  writeFileSync(probe, PROBE);

  const nodes: { major: string; path: string; version: string }[] = [{ major: '24', path: process.execPath, version: process.version }];
  const n22 = node22();
  if (n22.path) nodes.push({ major: '22', path: n22.path, version: n22.version! });
  if (!process.version.startsWith('v24.')) throw new Error(`bench must run on Node 24 (npm run bench), not ${process.version}`);

  const results: BundleResult[] = [];
  for (const [i, fn] of fns.entries()) {
    const file = join(OUT_DIR, `${fn.handler}.mjs`);
    const bytes = statSync(file).size;
    const mapBytes = statSync(`${file}.map`).size;
    const initRunsMs: Record<string, number[]> = {};
    const cpuRuns: Record<string, number[]> = {};
    // Alternate the versions run by run so drift in machine load hits both alike.
    for (let r = 0; r < INIT_RUNS; r++) {
      for (const n of nodes) {
        const m = await initOnce(n.path, probe, file, childEnv(fn));
        (initRunsMs[n.major] ??= []).push(round(m.ms, 1));
        (cpuRuns[n.major] ??= []).push(m.cpuMs);
      }
    }
    const initMs = Object.fromEntries(Object.entries(initRunsMs).map(([k, v]) => [k, round(median(v), 1)]));
    const initCpuMs = Object.fromEntries(Object.entries(cpuRuns).map(([k, v]) => [k, round(median(v), 1)]));
    results.push({
      handler: fn.handler,
      what: fn.what,
      bytes,
      kb: round(bytes / 1024, 1),
      mapBytes,
      initMs,
      initRunsMs,
      initCpuMs,
      underBundleLimit: bytes < BUNDLE_LIMIT_BYTES,
      underInitLimit: Object.values(initMs).every((ms) => ms < INIT_LIMIT_MS),
    });
    if ((i + 1) % 10 === 0) console.error(`bench bundles: ${i + 1}/${fns.length} measured`);
  }
  const sizes = results.map((r) => r.bytes);
  const initOf = (major: string) => results.map((r) => r.initMs[major]).filter((x): x is number => x !== undefined);
  const stats = (xs: number[]) => (xs.length ? { min: Math.min(...xs), median: round(median(xs), 1), max: Math.max(...xs) } : undefined);
  return {
    functions: results.length,
    buildMs,
    esbuildOptions:
      'ESM, platform node, target node24, minify, mainFields module/main, external RUNTIME_PROVIDED_MODULES + SHIPPED_BESIDE_MODULES (loaded lazily, shipped beside), createRequire banner, linked source map (sourcesContent false) — lib/lambda.ts',
    nodes: nodes.map(({ major, version }) => ({ major, version })),
    node22Unavailable: n22.reason,
    initRuns: INIT_RUNS,
    initEnv:
      'fresh node process per run, no NODE_OPTIONS (as deployed: source maps read on the first logged error), performance.now() around import() inside the child',
    limits: { bundleBytes: BUNDLE_LIMIT_BYTES, initMs: INIT_LIMIT_MS },
    sizeBytes: stats(sizes),
    initMs: Object.fromEntries(nodes.map((n) => [n.major, stats(initOf(n.major))])),
    initCpuMs: Object.fromEntries(
      nodes.map((n) => [n.major, stats(results.map((r) => r.initCpuMs[n.major]).filter((x): x is number => x !== undefined))]),
    ),
    largest: [...results]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 5)
      .map((r) => ({ handler: r.handler, kb: r.kb })),
    slowestInit: Object.fromEntries(
      nodes.map((n) => [
        n.major,
        [...results]
          .sort((a, b) => (b.initMs[n.major] ?? 0) - (a.initMs[n.major] ?? 0))
          .slice(0, 5)
          .map((r) => ({ handler: r.handler, ms: r.initMs[n.major] })),
      ]),
    ),
    overBundleLimit: results.filter((r) => !r.underBundleLimit).map((r) => ({ handler: r.handler, kb: r.kb })),
    overInitLimit: results.filter((r) => !r.underInitLimit).map((r) => ({ handler: r.handler, initMs: r.initMs })),
    results,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMain(async () => {
    const r = await runBundles();
    if (process.env.BENCH_OUT)
      writeJson(outPath('unused'), { phase: 'bundles', recordedAt: new Date().toISOString(), machine: machine(), ...r });
    for (const b of r.results) console.log(`${b.handler.padEnd(40)} ${String(b.kb).padStart(7)} KB  init ${JSON.stringify(b.initMs)}`);
    console.log(JSON.stringify({ sizeBytes: r.sizeBytes, initMs: r.initMs, nodes: r.nodes, node22Unavailable: r.node22Unavailable }));
  });
}
