/**
 * The SDK as an integrator gets it (DESIGN 8.2): build sdk/, `npm pack` it, install the
 * tarball in an empty folder (openapi-fetch comes from the npm cache or registry), compile
 * sdk/test/consumer.ts there under `tsc --strict`, and run it against this file's local
 * stack: it creates a participant, makes typed calls, and verifies a real delivered webhook
 * with verifyWebhook.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app';

const ROOT = resolve(import.meta.dirname, '../..');
const SDK = join(ROOT, 'sdk');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const NPM_CLI = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? process.env.npm_execpath : undefined;

/** npm with the Node running this test. */
function npm(args: string[], cwd: string): string {
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  if (NPM_CLI) return execFileSync(process.execPath, [NPM_CLI, ...args], { cwd, env, encoding: 'utf8', timeout: 180_000 });
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 180_000 });
}

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'idpay-sdk-consumer-'));
});
afterAll(async () => {
  await t?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the @idpay/sdk tarball', () => {
  it('builds, packs, installs in an empty folder, compiles under tsc --strict and runs against the local stack', async () => {
    rmSync(join(SDK, 'dist'), { recursive: true, force: true });
    execFileSync(process.execPath, [TSC, '-p', join(SDK, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });

    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], SDK)) as { filename: string; files: { path: string }[] }[];
    const tarball = join(dir, packed[0]!.filename);
    const files = packed[0]!.files.map((f) => f.path).sort();
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/generated/openapi.d.ts');
    expect(files).toContain('package.json');
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'package.json' && f !== 'README.md')).toEqual([]); // no sources, tests or tarballs

    const app = join(dir, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string })
      .version;
    npm(['install', '--prefer-offline', '--no-save', '--ignore-scripts', tarball, `@types/node@${typesNode}`], app);
    expect(readdirSync(join(app, 'node_modules/@idpay/sdk/dist'))).toContain('index.js');
    expect(readdirSync(join(app, 'node_modules'))).toContain('openapi-fetch');

    copyFileSync(join(SDK, 'test/consumer.ts'), join(app, 'consumer.ts'));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          outDir: 'out',
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    const compiled = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--strict'], { cwd: app, encoding: 'utf8' });
    expect(compiled.stdout + compiled.stderr, 'tsc --strict').toBe('');
    expect(compiled.status).toBe(0);

    // Asynchronously: the local stack answering the program runs in this process.
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ['out/consumer.js'],
        { cwd: app, encoding: 'utf8', timeout: 60_000, env: { ...process.env, IDPAY_URL: t.url, IDPAY_OPERATOR_KEY: t.operatorKey } },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout.trim()) as {
      status: number;
      merchantId: string;
      event: { type: string; data: { participantId: string } };
      deliveriesStatus: number;
    };
    expect(out.status).toBe(201);
    expect(out.event).toMatchObject({ type: 'webhook.test', data: { participantId: out.merchantId } });
    expect(out.deliveriesStatus).toBe(200);
  }, 300_000);
});
