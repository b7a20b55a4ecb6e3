/**
 * The SDK's generated types (sdk/src/generated/openapi.ts) are up to date with the sandbox
 * OpenAPI document, like test/docs/openapi.test.ts checks the document itself; and the
 * package depends on the openapi-fetch this repository builds and tests it with.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSdkMeta, generateSdkTypes, readSdkTypes, SDK_META_PATH, SDK_TYPES_PATH } from '../../scripts/sdk-types';
import type { WebhookEventType } from '../../sdk/src/index';
import type { EVENT_TYPES } from '../../functions/events/types';

describe('SDK types', () => {
  it('are up to date with functions/openapi/openapi.sandbox.json (else: npm run sdk:generate)', async () => {
    const expected = await generateSdkTypes();
    expect(readSdkTypes() === expected, `${SDK_TYPES_PATH} is stale: run \`npm run sdk:generate\` and commit it`).toBe(true);
    expect(readSdkTypes(SDK_META_PATH) === generateSdkMeta(), `${SDK_META_PATH} is stale: run \`npm run sdk:generate\``).toBe(true);
  }, 60_000);

  it('mistakes do not compile under tsc --strict, each with a message that names it (sdk/test/type-errors.ts)', () => {
    const r = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'sdk/test/tsconfig.type-errors.json', '--pretty', 'false'],
      {
        encoding: 'utf8',
      },
    );
    const diagnostics = new Map<number, string>();
    // A diagnostic is its first line and the indented lines that explain it (e.g. "Property 'body' is missing").
    for (const m of r.stdout.matchAll(/^(?:sdk\/test\/)?type-errors\.ts\((\d+),\d+\): (error TS\d+: .*(?:\n {2}.*)*)/gm))
      diagnostics.set(Number(m[1]), m[2]!);
    const expected = new Map<number, string>();
    readFileSync('sdk/test/type-errors.ts', 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const want = /\/\/ error: (.+)$/.exec(line)?.[1];
        if (want) expected.set(i + 1, want);
      });
    expect(expected.size).toBeGreaterThanOrEqual(10);
    expect(r.stdout, 'tsc ran on the file').toMatch(/type-errors\.ts\(/);
    for (const [line, want] of expected) expect(diagnostics.get(line) ?? '(compiles)', `line ${line}`).toContain(want);
    expect([...diagnostics.keys()].filter((l) => !expected.has(l)).map((l) => `${l}: ${diagnostics.get(l)}`)).toEqual([]);
  }, 120_000);

  it('the SDK (sources, generated types, README) refers to no document outside the package', () => {
    for (const file of [
      'sdk/src/generated/openapi.ts',
      'sdk/src/client.ts',
      'sdk/src/errors.ts',
      'sdk/src/webhooks.ts',
      'sdk/src/index.ts',
      'sdk/src/signing.ts',
      'sdk/src/generated/meta.ts',
      'sdk/src/cli/main.ts',
      'sdk/src/cli/listen.ts',
      'sdk/src/cli/triggers.ts',
    ]) {
      const text = readFileSync(file, 'utf8');
      expect(text.match(/.{0,60}\b(DESIGN|docs\/|decisions\/|\d\.\d's)\b.{0,40}/g) ?? [], file).toEqual([]);
    }
  });

  it("the webhook event union has exactly the service's event types (checked by npm run typecheck)", () => {
    type Service = (typeof EVENT_TYPES)[number];
    type Same = [Service] extends [WebhookEventType] ? ([WebhookEventType] extends [Service] ? true : false) : false;
    const same: Same = true; // does not compile when the two lists differ
    expect(same).toBe(true);
  });

  it('sdk/package.json depends on the openapi-fetch (and its type helpers) installed here, and builds with the TypeScript and @types/node of the repository', () => {
    const sdk = JSON.parse(readFileSync('sdk/package.json', 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      bin: Record<string, string>;
    };
    const installed = (name: string) =>
      (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
    expect(sdk.name).toBe('@idpay/sdk');
    expect(sdk.dependencies).toEqual({
      'openapi-fetch': installed('openapi-fetch'),
      'openapi-typescript-helpers': installed('openapi-typescript-helpers'),
    });
    expect(sdk.devDependencies).toEqual({ '@types/node': installed('@types/node'), typescript: installed('typescript') });
    expect(sdk.bin).toEqual({ idpay: 'dist/esm/cli/bin.js' });
    // its own lockfile pins the same versions (cd sdk && npm ci works without the repository's install)
    const lock = JSON.parse(readFileSync('sdk/package-lock.json', 'utf8')) as { packages: Record<string, { version?: string }> };
    for (const name of ['openapi-fetch', 'openapi-typescript-helpers', 'typescript', '@types/node'])
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(installed(name));
  });
});
