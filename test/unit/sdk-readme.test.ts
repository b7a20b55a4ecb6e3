/**
 * sdk/README.md against the OpenAPI document the SDK is typed from (DESIGN 9.5): it lists
 * every operation group and operationId, each group with an example (the examples are the
 * blocks of sdk/examples/readme.ts, compiled by `npm run typecheck`), and covers paging,
 * idempotency, retries, webhooks and errors; its generated parts are up to date (else: `npm
 * run sdk:readme`); and neither the README nor the SDK's hand-written sources point to a
 * document outside the package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  operationGroups,
  readDocument,
  readExamples,
  readReadme,
  README_PATH,
  renderOperations,
  renderReadme,
} from '../../sdk/scripts/readme';

const readme = readReadme();
const doc = readDocument();

/** A README section: from its `## ` heading to the next one. */
const section = (title: string) => {
  const at = readme.indexOf(`\n## ${title}\n`);
  expect(at, `section ${title}`).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', at + 1);
  return readme.slice(at, end < 0 ? undefined : end);
};

describe('sdk/README.md', () => {
  it('is up to date with the document and the examples (else: npm run sdk:readme)', () => {
    expect(renderReadme(readme) === readme, `${README_PATH} is stale: run \`npm run sdk:readme\` and commit it`).toBe(true);
  });

  it('lists every operation group with an example and every operationId with its call', () => {
    const groups = operationGroups(doc);
    expect(groups.length).toBeGreaterThanOrEqual(14);
    const ops = section('Operations');
    for (const g of groups) {
      const at = ops.indexOf(`\n### ${g.tag}\n`);
      expect(at, g.tag).toBeGreaterThan(0);
      const next = ops.indexOf('\n### ', at + 1);
      const body = ops.slice(at, next < 0 ? undefined : next);
      expect(body, `${g.tag}: an example`).toMatch(/```ts\n[\s\S]*idpay\.(GET|POST|PUT|PATCH|DELETE)\(/);
      for (const o of g.operations) expect(body).toContain(`| \`${o.method} ${o.path}\` | \`${o.operationId}\` |`);
    }
    let all = 0;
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) if (op?.operationId) all++;
    expect(all).toBeGreaterThan(80);
    expect(new Set(groups.flatMap((g) => g.operations.map((o) => o.operationId))).size).toBe(all);
  });

  it('a group without an example is an error that names it', () => {
    const examples = readExamples();
    examples.delete('Refunds');
    expect(() => renderOperations(operationGroups(doc), examples)).toThrow(/no example for the operation group\(s\) Refunds: add/);
  });

  it('covers paging (cursor and skip/offset), idempotency, retries, webhooks (every event type) and errors', () => {
    const paging = section('Paging');
    for (const s of ['startingAfter', 'hasMore', 'skip', 'offset', 'total', 'limit']) expect(paging).toContain(s);
    expect(section('Idempotency')).toContain("headers: { 'Idempotency-Key':");
    const retries = section('Retries');
    for (const s of ['429', 'Retry-After', '5xx', 'idempotency_in_progress', 'retry: false']) expect(retries).toContain(s);
    const hooks = section('Webhooks');
    expect(hooks).toContain('verifyWebhook(');
    for (const type of Object.keys((doc as { webhooks?: object }).webhooks ?? {})) expect(hooks).toContain(`| \`${type}\` |`);
    const errors = section('Errors');
    for (const s of ['IdpayError', 'requestId', 'code', 'not_found_error', 'rate_limit_error', 'unwrap(']) expect(errors).toContain(s);
  });

  it('points to no document outside the package (links stay in the README or the package)', () => {
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.filter((l) => !l.startsWith('#') && l !== 'LICENSE')).toEqual([]);
    expect(readme).not.toMatch(/DESIGN|docs\/|\.\.\/|interface-spec/);
  });
});

describe("the SDK's hand-written sources", () => {
  it('refer to no document outside themselves', () => {
    const dir = join(import.meta.dirname, '../../sdk/src');
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/DESIGN|docs\/|\.md\b|\b6\.6\b|interface-spec/);
    }
  });
});
