/**
 * `npm run sdk:readme`: writes the generated parts of sdk/README.md.
 *
 * - Between `<!-- begin:operations -->` and `<!-- end:operations -->`: every operation group
 *   of the OpenAPI document the SDK is typed from (its tags, in the document's order), each
 *   with its description, its operations (call, operationId, who may call it, paging) and
 *   one example: the block of sdk/examples/readme.ts named after the tag.
 * - Between `<!-- begin:events -->` and `<!-- end:events -->`: the event types of the
 *   document's `webhooks` section, each with its receiver and cause.
 * - Between `<!-- begin:example <name> -->` and `<!-- end:example -->`: the block `<name>` of
 *   sdk/examples/readme.ts.
 *
 * The examples live in a TypeScript file so that `npm run typecheck` compiles every one of
 * them against the SDK. A group without an example, or a marker naming no block, is an
 * error. `npm run sdk:readme -- --check` writes nothing and exits 1 when the README is stale
 * (test/unit/sdk-readme.test.ts runs the same check).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const README_PATH = 'sdk/README.md';
export const EXAMPLES_PATH = 'sdk/examples/readme.ts';
/** The document the SDK's types are generated from (scripts/sdk-types.ts). */
export const DOCUMENT_PATH = 'functions/openapi/openapi.sandbox.json';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Parameter {
  name?: string;
  in?: string;
}
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: (Parameter | { $ref: string })[];
  'x-participant-kinds'?: string[];
  'x-roles'?: string[];
}
interface Document {
  tags?: { name: string; description?: string }[];
  webhooks?: Record<string, { post?: { description?: string } }>;
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { parameters?: Record<string, Parameter> };
}

export interface OperationRow {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  who: string;
  paging: string;
}

export interface OperationGroup {
  tag: string;
  description: string;
  operations: OperationRow[];
}

export function readDocument(): Document {
  return JSON.parse(readFileSync(resolve(ROOT, DOCUMENT_PATH), 'utf8')) as Document;
}

/** The document's operation groups: its tags in order, each with its operations in path order. */
export function operationGroups(doc: Document): OperationGroup[] {
  const groups = new Map<string, OperationGroup>();
  for (const t of doc.tags ?? []) groups.set(t.name, { tag: t.name, description: t.description ?? '', operations: [] });
  const param = (p: Parameter | { $ref: string }): Parameter =>
    '$ref' in p ? (doc.components?.parameters?.[p.$ref.split('/').pop()!] ?? {}) : p;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const names = new Set((op.parameters ?? []).map(param).flatMap((p) => (p.in === 'query' && p.name ? [p.name] : [])));
      const paging = [
        names.has('startingAfter') ? '`startingAfter`' : '',
        names.has('skip') ? '`skip`' : '',
        names.has('offset') ? '`offset`' : '',
      ].filter(Boolean);
      const kinds = op['x-participant-kinds'] ?? [];
      const row: OperationRow = {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        who: kinds.length ? kinds.join(', ') : 'anyone',
        paging: paging.join(', '),
      };
      for (const tag of op.tags?.length ? op.tags : ['Other']) {
        if (!groups.has(tag)) groups.set(tag, { tag, description: '', operations: [] });
        groups.get(tag)!.operations.push(row);
      }
    }
  }
  return [...groups.values()].filter((g) => g.operations.length > 0);
}

/** The named blocks of the examples file, dedented. */
export function readExamples(source = readFileSync(resolve(ROOT, EXAMPLES_PATH), 'utf8')): Map<string, string> {
  const blocks = new Map<string, string>();
  const re = /^([ \t]*)\/\/ README:begin (.+)\n([\s\S]*?)^[ \t]*\/\/ README:end[ \t]*$/gm;
  for (const m of source.matchAll(re)) {
    const indent = m[1]!.length;
    const name = m[2]!.trim();
    if (blocks.has(name)) throw new Error(`${EXAMPLES_PATH}: two blocks named "${name}"`);
    const lines = m[3]!.replace(/\n$/, '').split('\n');
    blocks.set(name, lines.map((l) => (l.slice(0, indent).trim() === '' ? l.slice(indent) : l)).join('\n'));
  }
  return blocks;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const fence = (code: string) => `\`\`\`ts\n${code}\n\`\`\``;

export function renderOperations(groups: OperationGroup[], examples: Map<string, string>): string {
  const missing = groups.filter((g) => !examples.has(g.tag)).map((g) => g.tag);
  if (missing.length) {
    throw new Error(`no example for the operation group(s) ${missing.join(', ')}: add a "// README:begin <tag>" block to ${EXAMPLES_PATH}`);
  }
  const total = groups.reduce((n, g) => n + g.operations.length, 0);
  const out = [`${groups.length} groups, ${total} operations (the tags of the API's OpenAPI document).`, ''];
  for (const g of groups) {
    out.push(`### ${g.tag}`, '');
    if (g.description) out.push(g.description, '');
    out.push('| call | operationId | summary | caller | paging |', '|---|---|---|---|---|');
    for (const o of g.operations) {
      out.push(`| \`${o.method} ${o.path}\` | \`${o.operationId}\` | ${cell(o.summary)} | ${cell(o.who)} | ${o.paging} |`);
    }
    out.push('', fence(examples.get(g.tag)!), '');
  }
  return out.join('\n').trimEnd();
}

/** The event types a webhook endpoint receives: type, receiver, cause (from each event's description). */
export function renderEvents(doc: Document): string {
  const out = ['| event type | sent to | when |', '|---|---|---|'];
  for (const [type, item] of Object.entries(doc.webhooks ?? {})) {
    const text = item.post?.description ?? '';
    const to = /\*\*To:\*\*\s*(.*?)\.?\s*\*\*When:\*\*/s.exec(text)?.[1] ?? '';
    // the README stands alone: a pointer into the service's own design notes is left out
    const when = (/\*\*When:\*\*\s*([^\n]*)/.exec(text)?.[1] ?? '').replace(/\s*\(DESIGN [\d.]+\)/g, '').replace(/\.$/, '');
    out.push(`| \`${type}\` | ${cell(to)} | ${cell(when)} |`);
  }
  return out.join('\n');
}

function replaceRegion(text: string, name: string, content: string): string {
  const open = `<!-- begin:${name} -->\n`;
  const close = `\n<!-- end:${name} -->`;
  const a = text.indexOf(open);
  const b = a < 0 ? -1 : text.indexOf(close, a);
  if (a < 0 || b < 0) throw new Error(`${README_PATH}: no ${name} markers`);
  return text.slice(0, a + open.length) + content + text.slice(b);
}

/** The README with its generated parts rewritten. */
export function renderReadme(current: string, doc: Document = readDocument(), examples: Map<string, string> = readExamples()): string {
  let next = replaceRegion(current, 'operations', renderOperations(operationGroups(doc), examples));
  next = replaceRegion(next, 'events', renderEvents(doc));
  next = next.replace(
    /(<!-- begin:example (\S+) -->\n)[\s\S]*?(\n<!-- end:example -->)/g,
    (_all, open: string, name: string, close: string) => {
      const code = examples.get(name);
      if (code === undefined) throw new Error(`${README_PATH}: no example block "${name}" in ${EXAMPLES_PATH}`);
      return `${open}${fence(code)}${close}`;
    },
  );
  return next;
}

export const readReadme = () => readFileSync(resolve(ROOT, README_PATH), 'utf8');

function main() {
  const current = readReadme();
  const next = renderReadme(current);
  if (next === current) {
    console.log(`up to date  ${README_PATH}`);
    return;
  }
  if (process.argv.includes('--check')) {
    console.log(`STALE       ${README_PATH}`);
    console.error('out of date: run npm run sdk:readme and commit it');
    process.exitCode = 1;
    return;
  }
  writeFileSync(resolve(ROOT, README_PATH), next);
  console.log(`written     ${README_PATH}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main();
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 1;
  }
}
