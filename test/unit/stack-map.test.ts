import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_BUILD_OPTIONS } from '../../lib/lambda';

/**
 * The stack traces a deployed function logs name the source lines although Node runs without
 * `--enable-source-maps` (functions/platform/stack-map.ts): the fixture is bundled as
 * lib/lambda.ts bundles a handler (minified ESM, linked map without sources content), run in a
 * fresh Node process with a Lambda-like environment, and its logged line read.
 */
const FIXTURE = join(__dirname, 'fixtures/throws.ts');
const THROW_LINE =
  readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('throw new RangeError')) + 1;
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idpay-stack-map-'));
  bundle = join(dir, 'index.mjs');
  await build({
    entryPoints: [FIXTURE],
    outfile: bundle,
    ...LAMBDA_BUILD_OPTIONS,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error the bundle logs, run as on Lambda (NODE_OPTIONS as given). */
function loggedError(nodeOptions: string): { name: string; message: string; stack: string } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(bundle).href)})`], {
    env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions, AWS_LAMBDA_FUNCTION_NAME: 'idpay-stack-map', LOG_LEVEL: 'INFO' },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  const line = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  expect(line).toMatchObject({ level: 'ERROR', message: 'Unhandled error', function_name: 'idpay-stack-map' });
  return line.error;
}

describe('logged stack traces of a minified bundle', () => {
  it('name the source file and line of the throw, read from the map on the first error', () => {
    const error = loggedError('');
    expect(error).toMatchObject({ name: 'RangeError', message: 'fixture failure' });
    expect(error.stack).toMatch(new RegExp(`fixtures/throws\\.ts:${THROW_LINE}:\\d+`));
    expect(error.stack).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('are the same under --enable-source-maps (Node maps them; not mapped twice)', () => {
    const error = loggedError('--enable-source-maps');
    expect(error.stack).toMatch(new RegExp(`fixtures/throws\\.ts:${THROW_LINE}:\\d+`));
    expect(error.stack).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('keep the bundle positions when the map is missing, and the error is still logged', () => {
    rmSync(`${bundle}.map`);
    const error = loggedError('');
    expect(error).toMatchObject({ name: 'RangeError', message: 'fixture failure' });
    expect(error.stack).toMatch(/index\.mjs:\d+:\d+/);
    expect(error.stack).not.toContain('throws.ts');
  });
});
