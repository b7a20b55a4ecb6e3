/**
 * The SDK's generated types (sdk/src/generated/openapi.ts) are up to date with the sandbox
 * OpenAPI document, like test/docs/openapi.test.ts checks the document itself; and the
 * package depends on the openapi-fetch this repository builds and tests it with.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSdkTypes, readSdkTypes, SDK_TYPES_PATH } from '../../scripts/sdk-types';
import type { WebhookEventType } from '../../sdk/src/index';
import type { EVENT_TYPES } from '../../functions/events/types';

describe('SDK types', () => {
  it('are up to date with functions/openapi/openapi.sandbox.json (else: npm run sdk:generate)', async () => {
    const expected = await generateSdkTypes();
    expect(readSdkTypes() === expected, `${SDK_TYPES_PATH} is stale: run \`npm run sdk:generate\` and commit it`).toBe(true);
  }, 60_000);

  it('the SDK (sources, generated types, README) refers to no document outside the package', () => {
    for (const file of [
      'sdk/src/generated/openapi.ts',
      'sdk/src/client.ts',
      'sdk/src/errors.ts',
      'sdk/src/webhooks.ts',
      'sdk/src/index.ts',
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

  it('sdk/package.json depends on the openapi-fetch installed here', () => {
    const sdk = JSON.parse(readFileSync('sdk/package.json', 'utf8')) as { name: string; dependencies: Record<string, string> };
    const installed = JSON.parse(readFileSync('node_modules/openapi-fetch/package.json', 'utf8')) as { version: string };
    expect(sdk.name).toBe('@idpay/sdk');
    expect(sdk.dependencies).toEqual({ 'openapi-fetch': installed.version });
  });
});
