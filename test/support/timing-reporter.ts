/**
 * What a test run cost (DESIGN 10.1), as a vitest reporter: each project's time and the 10
 * slowest test files, written to test-results/timings.txt (and the figures to
 * test-results/timings.json) when the run ends. `.ci/run` prints the text just before its
 * closing "N passed, N failed" line. A file's time is what vitest counts for it: importing it
 * (collect), its setup files, and its tests and hooks (a stack's start in `beforeAll` included);
 * a project's wall time runs from its first file's start to its last file's end.
 *
 * Use: `vitest run --reporter=default --reporter=./test/support/timing-reporter.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface FileTiming {
  project: string;
  file: string;
  ms: number;
  start: number;
  end: number;
  tests: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The summary's lines: per project (in the order they started), then the 10 slowest files. */
export function timingLines(files: FileTiming[]): string[] {
  const byProject = new Map<string, FileTiming[]>();
  for (const f of [...files].sort((a, b) => a.start - b.start)) byProject.set(f.project, [...(byProject.get(f.project) ?? []), f]);
  const span = (fs: FileTiming[]) => (fs.length ? Math.max(...fs.map((f) => f.end)) - Math.min(...fs.map((f) => f.start)) : 0);
  const sum = (fs: FileTiming[]) => fs.reduce((s, f) => s + f.ms, 0);
  const row = (name: string, fs: FileTiming[]) =>
    `  ${name.padEnd(17)} wall ${seconds(span(fs)).padStart(9)}   files ${seconds(sum(fs)).padStart(9)}   ${fs.length} files, ${fs.reduce((s, f) => s + f.tests, 0)} tests`;
  return [
    'Time per vitest project (wall: its first file start to its last file end; files: the sum of its files):',
    ...[...byProject].map(([name, fs]) => row(name, fs)),
    row('(all)', files),
    'The 10 slowest test files:',
    ...[...files]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10)
      .map((f) => `  ${seconds(f.ms).padStart(8)}  ${f.file} (${f.project}, ${f.tests} tests)`),
  ];
}

export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly files: FileTiming[] = [];

  onTestModuleStart(m: TestModule): void {
    this.started.set(m.moduleId, Date.now());
  }

  onTestModuleEnd(m: TestModule): void {
    const d = m.diagnostic();
    const end = Date.now();
    this.files.push({
      project: m.project.name,
      file: m.relativeModuleId,
      ms: Math.round(d.collectDuration + d.setupDuration + d.duration),
      start: this.started.get(m.moduleId) ?? end,
      end,
      tests: [...m.children.allTests()].length,
    });
  }

  onTestRunEnd(): void {
    const dir = join(process.cwd(), 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'timings.json'), JSON.stringify(this.files, null, 1));
    writeFileSync(join(dir, 'timings.txt'), `${timingLines(this.files).join('\n')}\n`);
  }
}
