/**
 * The architecture, checked (docs/architecture.md): the layers of functions/ may only import
 * downwards (or sideways within their layer), no module may take part in an import cycle
 * (type-only imports count: they still tie modules together), no slice (a top-level folder
 * of functions/) takes part in a cycle of slices either, and bench/, scripts/ and the
 * runtime code import no test code.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const FUNCTIONS = join(ROOT, 'functions');

/**
 * Layers, lowest first. A module may import modules of its own layer or of a lower one.
 * Keys are paths under functions/: a folder (`platform/`) or a file (`config.ts`).
 */
export const LAYERS: { name: string; members: string[] }[] = [
  { name: 'ground floor', members: ['platform/', 'config.ts', 'routes.ts'] },
  { name: 'domain rules', members: ['domain/'] },
  { name: 'identity', members: ['identity/'] },
  { name: 'http pipeline', members: ['http/'] },
  { name: 'event path', members: ['events/', 'webhooks/'] },
  {
    name: 'features',
    members: [
      'customers/',
      'merchants/',
      'decisions/',
      'bills/',
      'billing/',
      'ledger/',
      'transactions/',
      'refunds/',
      'disputes/',
      'recurring/',
      'exports/',
      'search/',
      'sandbox/',
      'openapi/',
    ],
  },
  { name: 'entry points', members: ['api/', 'workers/'] },
];

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) out.push(p);
  }
  return out;
}

/** Relative imports of a file (static, side-effect, re-exports, dynamic), resolved to .ts files. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), fileName.replace(/\.(m?js|ts)$/, ''));
    const hit = [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c));
    if (hit) out.push(hit);
  }
  return out;
}

function layerOf(file: string): number {
  const rel = relative(FUNCTIONS, file);
  const i = LAYERS.findIndex((l) => l.members.some((m) => (m.endsWith('/') ? rel.startsWith(m) : rel === m)));
  return i;
}

function graph(files: string[]): Map<string, string[]> {
  return new Map(files.map((f) => [f, importsOf(f)]));
}

/** The slice of a module: its top-level folder under functions/ (`billing/`), or the file itself (`routes.ts`). */
export function sliceOf(file: string): string {
  const rel = relative(FUNCTIONS, file);
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash + 1);
}

/** The graph of slices: an edge where a module of one slice imports a module of another. */
export function sliceGraph(edges: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [from, tos] of edges) {
    const a = sliceOf(from);
    if (!out.has(a)) out.set(a, new Set());
    for (const to of tos) if (sliceOf(to) !== a) out.get(a)!.add(sliceOf(to));
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}

/** Which module imports make the slice edge `from -> to` (for a readable failure). */
const edgeWitness = (edges: Map<string, string[]>, from: string, to: string): string[] =>
  [...edges].flatMap(([f, tos]) => (sliceOf(f) === from ? tos.filter((t) => sliceOf(t) === to).map((t) => `${rel(f)} -> ${rel(t)}`) : []));

/** Every cycle found by a depth-first search (each back edge closes one). */
export function cyclesOf(edges: Map<string, string[]>): string[][] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (u: string) => {
    state.set(u, 1);
    stack.push(u);
    for (const v of edges.get(u) ?? []) {
      if (state.get(v) === 1) cycles.push([...stack.slice(stack.indexOf(v)), v]);
      else if (!state.has(v)) visit(v);
    }
    stack.pop();
    state.set(u, 2);
  };
  for (const f of edges.keys()) if (!state.has(f)) visit(f);
  return cycles;
}

const fns = tsFiles(FUNCTIONS);
const edges = graph(fns);
function rel(p: string): string {
  return relative(ROOT, p);
}

describe('architecture of functions/', () => {
  it('puts every module in a layer', () => {
    expect(fns.filter((f) => layerOf(f) < 0).map(rel)).toEqual([]);
  });

  it('imports only from the same or a lower layer', () => {
    const upward: string[] = [];
    for (const [from, tos] of edges) {
      for (const to of tos) {
        const a = layerOf(from);
        const b = layerOf(to);
        if (b > a) upward.push(`${rel(from)} (${LAYERS[a]?.name}) -> ${rel(to)} (${LAYERS[b]?.name})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cyclesOf(edges).map((c) => c.map(rel).join(' -> '))).toEqual([]);
  });

  it('has no cycle of slices: a slice never imports, directly or through others, a slice that imports it', () => {
    const cycles = cyclesOf(sliceGraph(edges));
    const explained = cycles.map((c) =>
      [c.join(' -> '), ...c.slice(1).flatMap((to, i) => edgeWitness(edges, c[i]!, to).map((w) => `  ${w}`))].join('\n'),
    );
    expect(explained).toEqual([]);
  });

  it('the checks can fail: an upward import and a cycle are found', () => {
    const a = join(FUNCTIONS, 'platform/a.ts');
    const b = join(FUNCTIONS, 'api/b.ts');
    expect(layerOf(b)).toBeGreaterThan(layerOf(a));
    expect(
      cyclesOf(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([[a, b, a]]);
  });

  it('the checks can fail: a cycle of slices made of modules that form no file cycle is found', () => {
    const bill = join(FUNCTIONS, 'billing/create.ts');
    const run = join(FUNCTIONS, 'recurring/run.ts');
    const store = join(FUNCTIONS, 'recurring/store.ts');
    const settle = join(FUNCTIONS, 'billing/settle.ts');
    const files = new Map([
      [run, [bill]],
      [settle, [store]],
    ]);
    expect(cyclesOf(files)).toEqual([]);
    expect(cyclesOf(sliceGraph(files))).toEqual([['recurring/', 'billing/', 'recurring/']]);
    expect(sliceOf(join(FUNCTIONS, 'routes.ts'))).toBe('routes.ts');
  });
});

/** DynamoDB writes in a module's code (comments left out). */
const WRITES = /\b(UpdateCommand|PutCommand|DeleteCommand|TransactWriteCommand|BatchWriteCommand)\b|\b(transact|putItem)\(/;
const code = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
const writers = (files: string[]) => files.filter((f) => WRITES.test(code(f))).map(rel);

describe('persistence boundary', () => {
  it('handlers under api/ and the workers/ entry points write nothing themselves (their feature store does)', () => {
    const entry = fns.filter((f) => /^functions\/(api|workers)\//.test(rel(f)));
    expect(writers(entry)).toEqual([]);
  });

  it('handlers under api/ write no DynamoDB expression (queries and conditions live in the feature)', () => {
    const handlers = fns.filter((f) => rel(f).startsWith('functions/api/'));
    expect(
      handlers.filter((f) => /\b(KeyConditionExpression|UpdateExpression|ConditionExpression|FilterExpression)\b/.test(code(f))).map(rel),
    ).toEqual([]);
  });

  it("only a feature's store modules write (store.ts, or <thing>-store.ts beside it); the few shared writers are named", () => {
    // Shared writers, each for a reason: platform/ is the ground floor (the due index's
    // claims, the table helpers); the outbox commits every workflow's items with its events in
    // one transaction (the unit of work); http/ stores idempotency records and counts each
    // key's rate-limit window on the key item, for every route alike.
    const SHARED = ['functions/events/outbox.ts', 'functions/http/idempotency.ts', 'functions/http/auth.ts'];
    const isStore = (f: string) => /(^|[/-])store\.ts$/.test(rel(f)) || rel(f).startsWith('functions/platform/') || SHARED.includes(rel(f));
    expect(writers(fns.filter((f) => !isStore(f)))).toEqual([]);
  });

  it('read modules (views.ts) only read', () => {
    const views = fns.filter((f) => f.endsWith('/views.ts'));
    expect(views.length).toBeGreaterThan(0);
    expect(writers(views)).toEqual([]);
  });

  it('the checks can fail: a write is found', () => {
    expect(WRITES.test('await db().send(new UpdateCommand({}))')).toBe(true);
    expect(WRITES.test('await transact(items)')).toBe(true);
    expect(WRITES.test('await getItem(key)')).toBe(false);
  });
});

describe('the other code folders', () => {
  it('lib/, local/, ops/, bench/ and scripts/ have no import cycle either (local/app.ts and local/artifacts/app.ts share local/runtime.ts)', () => {
    const files = ['lib', 'local', 'ops', 'bench', 'scripts'].flatMap((d) => tsFiles(join(ROOT, d)));
    expect(cyclesOf(graph(files)).map((c) => c.map(rel).join(' -> '))).toEqual([]);
  });
});

describe('test code stays out of shipped and measured code', () => {
  it('functions/, lib/, local/, bench/ and scripts/ import nothing under test/', () => {
    const dirs = ['functions', 'lib', 'local', 'bench', 'scripts'].map((d) => join(ROOT, d));
    const offenders = dirs.flatMap(tsFiles).flatMap((f) =>
      importsOf(f)
        .filter((t) => t.startsWith(`${join(ROOT, 'test')}/`))
        .map((t) => `${rel(f)} -> ${rel(t)}`),
    );
    expect(offenders).toEqual([]);
  });
});
