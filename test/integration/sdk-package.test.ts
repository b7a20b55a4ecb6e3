/**
 * The SDK as an integrator gets it (DESIGN 8.2, 9.5): `npm pack` in sdk/ from a tree without
 * dist/ (prepack builds it), the tarball installed with npm in an empty ESM project and in an
 * empty CommonJS project (openapi-fetch comes from the npm cache or registry), a program
 * compiled there under `tsc --strict` (sdk/test/consumer.ts, sdk/test/consumer-cjs.ts) and
 * run against this file's local stack: each creates a participant with the operator key,
 * reads back through the SDK, meets a typed IdpayError, pages a list and verifies a webhook
 * (and mistakes fail to compile). The package's `idpay` command: `npx idpay trigger
 * billing.response` reaches a listener started with `npx idpay listen` in that project.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';
import { verifyWebhook } from '../../sdk/src/index';

const ROOT = resolve(import.meta.dirname, '../..');
const SDK = join(ROOT, 'sdk');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const NPM_CLI = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? process.env.npm_execpath : undefined;

/** npm with the Node running this test (its node_modules/.bin first on PATH, as under npm run). */
function npm(args: string[], cwd: string): string {
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  if (NPM_CLI) return execFileSync(process.execPath, [NPM_CLI, ...args], { cwd, env, encoding: 'utf8', timeout: 180_000 });
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
}

/** Runs `node <args>` in `cwd` without blocking: the local stack answering it runs in this process. */
function node(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

function tsc(cwd: string, compilerOptions: Record<string, unknown>, file: string): string {
  writeFileSync(
    join(cwd, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', types: ['node'], outDir: 'out', skipLibCheck: false, ...compilerOptions },
      files: [file],
    }),
  );
  const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--strict'], { cwd, encoding: 'utf8' });
  return `${r.stdout}${r.stderr}${r.status === 0 ? '' : `\nexit ${r.status}`}`;
}

let t: TestApp;
let rx: Receiver;
let dir: string;
let tarball: string;
let esmApp: string;
const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;

/** An empty project (its own package.json) with the tarball and @types/node installed by npm. */
function project(name: string, pkg: Record<string, unknown>): string {
  const app = join(dir, name);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name, private: true, ...pkg }));
  npm(['install', '--prefer-offline', '--no-save', '--ignore-scripts', tarball, `@types/node@${typesNode}`], app);
  expect(readdirSync(join(app, 'node_modules'))).toContain('openapi-fetch');
  return app;
}

beforeAll(async () => {
  // The simulated bank answers at once; the local tick runs by itself, as under npm start (idpay trigger).
  t = await startTestApp({ SANDBOX_BANK_DELAY_SECONDS: '0' }, { tickMs: 200 });
  rx = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'idpay-sdk-consumer-'));
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the @idpay/sdk tarball', () => {
  it('npm pack builds first (prepack, from a tree without dist/) and packs both builds, the license and the README, no sources', () => {
    rmSync(join(SDK, 'dist'), { recursive: true, force: true });
    const out = npm(['pack', '--json', '--pack-destination', dir], SDK);
    const packed = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    tarball = join(dir, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path).sort();
    for (const f of [
      'dist/esm/index.js',
      'dist/esm/index.d.ts',
      'dist/esm/generated/openapi.d.ts',
      'dist/cjs/index.js',
      'dist/cjs/index.d.ts',
      'dist/cjs/package.json',
      'LICENSE',
      'README.md',
      'package.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([]);
    expect(JSON.parse(readFileSync(join(SDK, 'dist/cjs/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    const pkg = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('UNLICENSED');
    expect(readFileSync(join(SDK, 'LICENSE'), 'utf8')).toContain('All rights reserved');
  }, 120_000);

  it('ESM project: `import` works; a program compiled under tsc --strict runs against the local stack', async () => {
    expect(existsSync(tarball)).toBe(true);
    const app = project('consumer-esm', { type: 'module' });
    esmApp = app;
    const bare = await node(
      [
        '--input-type=module',
        '-e',
        "import { createClient, IdpayError } from '@idpay/sdk'; console.log(typeof createClient, typeof IdpayError)",
      ],
      app,
    );
    expect(bare.stderr).toBe('');
    expect(bare.stdout.trim()).toBe('function function');

    copyFileSync(join(SDK, 'test/consumer.ts'), join(app, 'consumer.ts'));
    expect(tsc(app, { module: 'NodeNext', moduleResolution: 'NodeNext' }, 'consumer.ts'), 'tsc --strict').toBe('');
    const run = await node(['out/consumer.js'], app, { IDPAY_URL: t.url, IDPAY_OPERATOR_KEY: t.operatorKey });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout.trim()) as {
      status: number;
      merchantId: string;
      event: { type: string; data: { participantId: string } };
      deliveriesStatus: number;
      refused: unknown;
      urls: string[];
      version: string;
    };
    expect(out.status).toBe(201);
    expect(out.event).toMatchObject({ type: 'webhook.test', data: { participantId: out.merchantId } });
    expect(out.deliveriesStatus).toBe(200);
    expect(out.refused).toEqual({ status: 400, type: 'invalid_request_error', message: 'Invalid request parameters', fields: 1 });
    expect(out.urls).toHaveLength(1);
    expect(out.version).toBe('2026-11-01');
  }, 300_000);

  it('CommonJS project: `require` works (typed by the require declarations, also under node10 resolution); a program runs against the local stack', async () => {
    expect(existsSync(tarball)).toBe(true);
    const app = project('consumer-cjs', {});
    const bare = await node(['-e', "const sdk = require('@idpay/sdk'); console.log(Object.keys(sdk).sort().join(','))"], app);
    expect(bare.stderr).toBe('');
    expect(bare.stdout.trim().split(',')).toEqual(
      expect.arrayContaining(['createClient', 'unwrap', 'IdpayError', 'isIdpayError', 'verifyWebhook', 'WebhookVerificationError']),
    );

    copyFileSync(join(SDK, 'test/consumer-cjs.ts'), join(app, 'consumer.ts'));
    // the package's top-level `types` serves projects on the old resolution
    expect(
      tsc(app, { module: 'CommonJS', moduleResolution: 'Node10', esModuleInterop: true }, 'consumer.ts'),
      'tsc --strict (node10)',
    ).toBe('');
    rmSync(join(app, 'out'), { recursive: true, force: true });
    expect(tsc(app, { module: 'NodeNext', moduleResolution: 'NodeNext' }, 'consumer.ts'), 'tsc --strict (NodeNext, CommonJS)').toBe('');
    expect(readFileSync(join(app, 'out/consumer.js'), 'utf8')).toContain('require("@idpay/sdk")');

    const run = await node(['out/consumer.js'], app, { IDPAY_URL: t.url, IDPAY_OPERATOR_KEY: t.operatorKey });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout.trim()) as {
      module: string;
      merchantId: string;
      email: string;
      urls: string[];
      error: Record<string, unknown>;
      eventType: string;
    };
    expect(out.module).toBe('object'); // it ran as CommonJS
    expect(out.urls).toEqual(['http://127.0.0.1:9/cjs-hooks']);
    expect(out.error).toMatchObject({
      status: 404,
      code: expect.stringMatching(/^[a-z_]+$/),
      type: 'not_found_error',
      message: 'Refund not found',
    });
    expect(out.error.requestId).toMatch(/\S/);
    expect(out.eventType).toBe('webhook.test');
  }, 300_000);
});

describe('the idpay command of the tarball', () => {
  it('npx idpay trigger billing.response reaches npx idpay listen (key from IDPAY_API_KEY, API from IDPAY_API_URL), signed with the kept secret', async () => {
    expect(existsSync(join(esmApp, 'node_modules/.bin/idpay'))).toBe(true);
    await t.participant('bank', { simulated: true });
    const merchant = await t.participant('merchant');
    const hook = rx.endpointUrl('npx-listen');
    const npx = NPM_CLI ? [process.execPath, NPM_CLI.replace(/npm-cli\.js$/, 'npx-cli.js')] : ['npx'];
    const env = {
      ...process.env,
      IDPAY_API_KEY: merchant.apiKey,
      IDPAY_API_URL: t.url,
      IDPAY_LISTEN_SECRET_FILE: join(dir, 'listen-secret'),
      npm_config_update_notifier: 'false',
    };
    const listener = spawn(npx[0]!, [...npx.slice(1), '--no-install', 'idpay', 'listen', '--forward-to', hook.url, '--interval', '200'], {
      cwd: esmApp,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // its own process group: npx runs the command in a child of its own, and both must end
      detached: true,
    });
    let out = '';
    listener.stdout.on('data', (d) => (out += d));
    listener.stderr.on('data', (d) => (out += d));
    try {
      const deadline = Date.now() + 60_000;
      while (!/kept in /.test(out)) {
        if (Date.now() > deadline || listener.exitCode !== null) throw new Error(`idpay listen did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const secret = /Signing secret .*: (whsec_\S+)/.exec(out)![1]!;
      expect(readFileSync(join(dir, 'listen-secret'), 'utf8').trim()).toBe(secret);
      const triggered = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
        execFile(
          npx[0]!,
          [...npx.slice(1), '--no-install', 'idpay', 'trigger', 'billing.response'],
          { cwd: esmApp, env, encoding: 'utf8', timeout: 90_000 },
          (e, stdout, stderr) => done({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout, stderr }),
        ),
      );
      expect(triggered.stderr).toBe('');
      expect(triggered.stdout).toMatch(/^billing\.response: payment \S+ succeeded/);
      await rx.waitFor(hook.path, (reqs) => reqs.some((r) => JSON.parse(r.body).type === 'billing.response'), 30_000);
      const got = rx.received(hook.path).find((r) => JSON.parse(r.body).type === 'billing.response')!;
      expect(verifyWebhook(got.body, got.headers, secret)).toMatchObject({
        type: 'billing.response',
        apiVersion: '2026-11-01',
        livemode: false,
      });
      // the listener prints a forwarded event once its POST is answered: after the receiver has it
      await expect.poll(() => out, { timeout: 30_000 }).toContain('billing.response');
    } finally {
      const ended = new Promise((done) => (listener.exitCode !== null ? done(null) : listener.once('exit', done)));
      const group = (signal: NodeJS.Signals) => {
        try {
          process.kill(-listener.pid!, signal);
        } catch {
          // already gone
        }
      };
      group('SIGINT');
      const hard = setTimeout(() => group('SIGKILL'), 10_000);
      await ended;
      clearTimeout(hard);
    }
  }, 180_000);
});
