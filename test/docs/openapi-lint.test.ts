/**
 * DESIGN 8.2, 10.4: Redocly's recommended ruleset reports 0 errors and at most 20 warnings on the served documents, and
 * every webhook documents both signature header sets (6.6 and Standard Webhooks).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const docPath = (stage: string) => `functions/openapi/openapi.${stage}.json`;

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

describe.each(['sandbox', 'live'])('the %s document', (stage) => {
  it("passes Redocly's recommended rules with 0 errors and at most 20 warnings", () => {
    const out = spawnSync(
      resolve(ROOT, 'node_modules/.bin/redocly'),
      ['lint', docPath(stage), '--extends', 'recommended', '--format', 'json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      },
    );
    const report = JSON.parse(out.stdout) as LintReport;
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    const warnings = report.problems.filter((p) => p.severity === 'warn').map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    expect(warnings.length, warnings.join('\n')).toBeLessThanOrEqual(20);
  }, 60_000);

  it('documents both webhook header sets on every event, with no security scheme (the receiver checks the signature)', () => {
    const doc = JSON.parse(readFileSync(resolve(ROOT, docPath(stage)), 'utf8')) as {
      webhooks: Record<string, { post: { security: unknown[]; parameters: { $ref: string }[] } }>;
    };
    const names = ['X-Webhook-Id', 'X-Webhook-Timestamp', 'X-Webhook-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
    expect(Object.keys(doc.webhooks).length).toBeGreaterThan(0);
    for (const [type, hook] of Object.entries(doc.webhooks)) {
      expect(hook.post.security, type).toEqual([]);
      expect(
        hook.post.parameters.map((p) => p.$ref.split('/').pop()),
        type,
      ).toEqual(names);
    }
  });
});
