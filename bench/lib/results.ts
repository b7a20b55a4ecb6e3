/** Machine facts and result files shared by the benchmarks. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { round } from './stats';

/** The bench/ folder. */
export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where a benchmark writes its JSON: `BENCH_OUT` if set (npm run bench collects into its own file), else bench/<name>. */
export function outPath(defaultName: string): string {
  return process.env.BENCH_OUT ? resolve(process.env.BENCH_OUT) : resolve(BENCH_DIR, defaultName);
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export const loadAverage = (): number[] => loadavg().map((l) => round(l));

export function machine() {
  return {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(totalmem() / 2 ** 30, 1),
    loadAverage: loadAverage(),
  };
}

/** Run a benchmark's main: exit 0 on success, print the error and exit 1 otherwise. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
