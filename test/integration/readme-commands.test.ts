/**
 * The README's operator-key commands work with whatever PORT the stack runs on and whether
 * OPERATOR_API_KEY is set or not: the "Run it locally" block is executed as it is, with bash,
 * curl and jq, in a folder whose `.local/` holds what `npm start` writes there
 * (`endpoints.json` with the stack's URL, and `operator.key` only when npm start generated
 * the key), against a local stack on a free port (never 3000). The sandbox walkthrough's
 * "Set:" block resolves the same way.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const MARKER = '<!-- operator commands: executed by test/integration/readme-commands.test.ts -->';

/** The fenced bash block right after `after` in the README. */
function bashBlock(after: string): string {
  const at = README.indexOf(after);
  expect(at, after).toBeGreaterThanOrEqual(0);
  const m = /```bash\n([\s\S]*?)^```$/m.exec(README.slice(at));
  expect(m, `a bash block after ${after}`).not.toBeNull();
  return m![1]!;
}

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'readme-commands-'));
});
afterAll(async () => {
  await t?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `script` with bash in a fresh folder holding `.local/` as npm start leaves it; returns the printed output. */
function run(
  script: string,
  local: { operatorKeyFile?: string },
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; out: string }> {
  const cwd = mkdtempSync(join(dir, 'cwd-'));
  mkdirSync(join(cwd, '.local'));
  writeFileSync(join(cwd, '.local', 'endpoints.json'), JSON.stringify({ url: t.url, STAGE: 'sandbox' }));
  if (local.operatorKeyFile !== undefined) writeFileSync(join(cwd, '.local', 'operator.key'), `${local.operatorKeyFile}\n`);
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, PORT: undefined, OPERATOR_API_KEY: undefined, ...env }))
    if (v !== undefined) childEnv[k] = v;
  return new Promise((done, fail) => {
    // Asynchronous on purpose: the local stack answers in this very process.
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`timed out:\n${out}`));
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

describe('README operator-key commands', () => {
  it('the stack under test is not on the default port', () => {
    expect(new URL(t.url).port).not.toBe('3000');
  });

  const block = () => `${bashBlock(MARKER)}\necho; echo "@@MERCHANT_KEY=$MERCHANT_KEY"`;
  const balance = (out: string) => JSON.parse(out.split('\n').find((l) => l.startsWith('{"statusCode"'))!);

  it('with OPERATOR_API_KEY set (no .local/operator.key, as npm start then writes none)', async () => {
    const r = await run(block(), {}, { OPERATOR_API_KEY: t.operatorKey });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^@@MERCHANT_KEY=sk_sandbox_\S+$/m);
    expect(balance(r.out)).toMatchObject({ statusCode: 200, success: true });
  });

  it('with OPERATOR_API_KEY set, it wins over a stale .local/operator.key', async () => {
    const r = await run(block(), { operatorKeyFile: 'op_stale_key_from_an_earlier_start' }, { OPERATOR_API_KEY: t.operatorKey });
    expect(r.code, r.out).toBe(0);
    expect(balance(r.out)).toMatchObject({ statusCode: 200, success: true });
  });

  it('without OPERATOR_API_KEY: the key npm start generated into .local/operator.key', async () => {
    const r = await run(block(), { operatorKeyFile: t.operatorKey }, {});
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^@@MERCHANT_KEY=sk_sandbox_\S+$/m);
    expect(balance(r.out)).toMatchObject({ statusCode: 200, success: true });
  });

  it('the sandbox walkthrough\'s "Set:" block resolves the URL and the operator key the same way', async () => {
    const set = bashBlock('Set:\n');
    expect(set).toContain('OPERATOR_KEY=');
    const script = `${set}\necho "@@BASE_URL=$BASE_URL"; echo "@@OPERATOR_KEY=$OPERATOR_KEY"`;
    for (const [local, env] of [
      [{}, { OPERATOR_API_KEY: t.operatorKey }],
      [{ operatorKeyFile: t.operatorKey }, {}],
    ] as const) {
      const r = await run(script, local, env);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`@@BASE_URL=${t.url}\n`);
      expect(r.out).toContain(`@@OPERATOR_KEY=${t.operatorKey}\n`);
    }
  });
});
