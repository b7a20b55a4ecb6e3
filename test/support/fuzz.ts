/**
 * Property-based fuzzing helpers (fast-check) for the reliability suite:
 *
 * - `snapshotTable` / `diffSnapshots`: the test's own table, whole (a Scan), so a test can
 *   prove that a rejected request wrote nothing. What legitimately changes on every
 *   request is left out: the caller's item's (an API key's, or a person's membership)
 *   rate-limit window counters (`rlw_*`/`rln_*`) and `lastUsedAt`, and idempotency records (`IDEM#…`).
 * - arbitraries of hostile input built from scratch: random JSON, wrong types, huge and
 *   unicode strings, deep nesting, prototype-pollution keys, numbers JSON.stringify cannot
 *   write (`1e309`, `-0`), 10,000-element arrays, malformed JSON text, and "almost valid"
 *   bodies made by mutating a valid example.
 * - `envelopeProblem`: what is wrong with a response, if anything (DESIGN 6.3).
 *
 * Bodies are generated as JSON TEXT (`Raw` tokens are written verbatim), so numbers like
 * `1e309` or `-0` reach the server as sent.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { db, DYNAMO_WRITE_OPERATIONS } from '../../functions/platform/clients';
import { table } from '../../functions/platform/table';

// ---------------------------------------------------------------------------------------
// Table snapshots

export type Snapshot = Map<string, string>;

/** What the pipeline stamps on the caller's item on every request: rate windows and last use. */
const RATE_ATTR = /^(rl[wn]_|lastUsedAt$)/;

/** Stable JSON (sorted keys) of an item, without the attributes that change on every request. */
function normalize(item: Record<string, unknown>): string {
  const pk = String(item.pk);
  const keep = Object.keys(item)
    .filter((k) => !((pk.startsWith('APIKEY#') || pk.startsWith('USER#')) && RATE_ATTR.test(k)))
    .sort();
  return JSON.stringify(keep.map((k) => [k, sortDeep(item[k])]));
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v instanceof Set) return [...v].map(sortDeep).sort();
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Every item of the test's own table (strongly consistent Scan), minus idempotency records and rate counters. */
export async function snapshotTable(): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: table(), ExclusiveStartKey: start, ConsistentRead: true }));
    for (const it of out.Items ?? []) {
      const pk = String(it.pk);
      if (pk.startsWith('IDEM#')) continue;
      snap.set(`${pk} | ${String(it.sk)}`, normalize(it));
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return snap;
}

/** A key's partition key, marshalled (`{ S: … }`) or not. */
const pkOf = (key: unknown): string | undefined => {
  const pk = (key as { pk?: unknown } | undefined)?.pk;
  return typeof pk === 'string' ? pk : typeof (pk as { S?: unknown })?.S === 'string' ? (pk as { S: string }).S : undefined;
};

/** The attributes an update expression names (`#n` resolved), without its keywords and functions. */
function updatedAttributes(expression: string, names: Record<string, string> = {}): string[] {
  const words = expression.replace(/:[\w]+/g, ' ').match(/#?[A-Za-z_][\w]*/g) ?? [];
  return words
    .filter((w) => !/^(SET|ADD|REMOVE|DELETE|if_not_exists|list_append)$/i.test(w))
    .map((w) => (w.startsWith('#') ? (names[w] ?? w) : w));
}

/**
 * Whether a write leaves the snapshot as it is: an idempotency record, or the caller's rate
 * window and last use (what `normalize` leaves out). Anything not recognised counts as a write.
 */
function invisibleWrite(command: string, input: Record<string, any>): boolean {
  const one = (op: 'Put' | 'Update' | 'Delete', w: Record<string, any>): boolean => {
    const pk = pkOf(op === 'Put' ? w.Item : w.Key);
    if (pk === undefined) return false;
    if (pk.startsWith('IDEM#')) return true;
    if (op !== 'Update' || !(pk.startsWith('APIKEY#') || pk.startsWith('USER#')) || typeof w.UpdateExpression !== 'string') return false;
    const attrs = updatedAttributes(w.UpdateExpression, w.ExpressionAttributeNames);
    return attrs.length > 0 && attrs.every((a) => RATE_ATTR.test(a));
  };
  if (command === 'PutItem') return one('Put', input);
  if (command === 'UpdateItem') return one('Update', input);
  if (command === 'DeleteItem') return one('Delete', input);
  if (command === 'TransactWriteItems')
    return (input.TransactItems ?? []).every((t: Record<string, any>) =>
      t.ConditionCheck ? true : t.Put ? one('Put', t.Put) : t.Update ? one('Update', t.Update) : t.Delete ? one('Delete', t.Delete) : false,
    );
  if (command === 'BatchWriteItem')
    return Object.values(input.RequestItems ?? {}).every((reqs) =>
      (reqs as Record<string, any>[]).every((r) =>
        r.PutRequest ? one('Put', r.PutRequest) : r.DeleteRequest ? one('Delete', r.DeleteRequest) : false,
      ),
    );
  return false;
}

/**
 * Counts the table writes this process's DynamoDB client made that succeeded and could show
 * in a snapshot (all but `invisibleWrite`s). In the in-process runs the handlers, workers and
 * stream consumer use this client, so a rejected request during which the count did not move
 * wrote nothing: its full Scan can be skipped. A request that wrote is still checked by a Scan.
 */
export function watchTableWrites(): { count: () => number; remove: () => void } {
  let n = 0;
  const name = 'fuzzWriteWatch';
  const stack = db().middlewareStack as unknown as {
    add: (mw: unknown, opts: Record<string, unknown>) => void;
    remove: (name: string) => void;
  };
  stack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const out = await next(args);
      const command = (context.commandName ?? '').replace(/Command$/, '');
      if (
        DYNAMO_WRITE_OPERATIONS.has(command) &&
        !invisibleWrite(command, ((args as { input?: unknown }).input ?? {}) as Record<string, any>)
      )
        n++;
      return out;
    },
    { step: 'initialize', name, override: true },
  );
  return { count: () => n, remove: () => stack.remove(name) };
}

/** Human-readable differences (empty when equal). */
export function diffSnapshots(before: Snapshot, after: Snapshot, max = 10): string[] {
  const out: string[] = [];
  for (const [k, v] of after) {
    if (!before.has(k)) out.push(`added ${k}: ${v.slice(0, 300)}`);
    else if (before.get(k) !== v) out.push(`changed ${k}: ${before.get(k)!.slice(0, 300)} -> ${v.slice(0, 300)}`);
  }
  for (const k of before.keys()) if (!after.has(k)) out.push(`removed ${k}`);
  return out.slice(0, max);
}

// ---------------------------------------------------------------------------------------
// JSON text with raw tokens

/** A JSON token written verbatim (numbers JSON.stringify cannot produce, or broken text). */
export class Raw {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** JSON text of a value; `Raw` verbatim; non-finite numbers as 1e309 / -1e309 / null. */
export function jsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v === undefined) return 'null';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'null';
    if (v === Infinity) return '1e309';
    if (v === -Infinity) return '-1e309';
    if (Object.is(v, -0)) return '-0';
    return JSON.stringify(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${jsonText(x)}`);
  }
  return `{${parts.join(',')}}`;
}

/** An object literal with own keys exactly as given (`__proto__` stays an own key). */
export function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

// ---------------------------------------------------------------------------------------
// Arbitraries

export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

const SPECIAL_STRINGS = [
  '',
  ' ',
  '   \t\n',
  '\u0000',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '١٢٣',
  '１２３',
  '\u202eevil',
  '\u200b',
  '\ufeff',
  'e\u0301',
  '👩‍👩‍👧‍👦',
  '𝕳𝖊𝖑𝖑𝖔',
  '\ud800',
  '\udfff',
  '../../../etc/passwd',
  '%00',
  '%zz',
  "' OR '1'='1' --",
  '"; DROP TABLE t; --',
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j probe string, sent as is
  '${jndi:ldap://127.0.0.1/a}',
  '<script>alert(1)</script>',
  'BILL#x',
  'PART#x',
  'APIKEY#x',
  'DUE#0',
  'breq_',
  'txn_',
  'dec_',
  'whe_',
  'dlv_',
  'rfd_',
  'sch_',
  'NGN',
  'ngn',
  'USD',
  'approve_recurring',
  'premium',
  '2026-02-30T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  'http://169.254.169.254/latest/meta-data',
  'http://[::1]:1/',
  'a@b',
  'a'.repeat(256),
  ...POLLUTION_KEYS,
];

/** Large values, built once (random generation of these would be slow and pointless). */
const BIG_STRINGS = ['x'.repeat(1_001), 'é'.repeat(70_000), '𝕳'.repeat(120_000), '0'.repeat(400_000)];
const BIG_ARRAYS: unknown[] = [
  Array.from({ length: 10_000 }, () => 'x'),
  Array.from({ length: 10_000 }, (_, i) => i),
  Array.from({ length: 10_000 }, () => ({})),
  Array.from({ length: 1_001 }, (_, i) => ({ clientRef: `c${i}` })),
];
const deep = (n: number, open: string, close: string, inner = '1') => new Raw(open.repeat(n) + inner + close.repeat(n));
const DEEP_VALUES: unknown[] = [
  deep(64, '[', ']'),
  deep(5_000, '[', ']'),
  deep(40, '{"a":', '}'),
  deep(3_000, '{"a":', '}'),
  deep(33, '{"__proto__":', '}', '{}'),
];

/** C0, DEL, C1 and the bidi controls text fields refuse (DESIGN 8.1). */
const CONTROL_CHARS = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u0085',
  '\u009f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
/** Ordinary text with control and bidi characters mixed in (a spoofed "Bank\u202eAlert"). */
const controlString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom(...CONTROL_CHARS)), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.join(''));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string(), weight: 3 },
  { arbitrary: controlString, weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constantFrom(...SPECIAL_STRINGS), weight: 4 },
  { arbitrary: fc.constantFrom(...BIG_STRINGS), weight: 1 },
  { arbitrary: fc.string({ minLength: 90, maxLength: 600 }), weight: 1 },
);

const RAW_NUMBERS = [
  '1e309',
  '-1e309',
  '-0',
  '0.0',
  '1e-400',
  '1E2',
  '100.0000000000000000001',
  '9007199254740993',
  '-9007199254740993',
  '1.005',
  '0.015',
  '12345678901234567890.12',
  '1e21',
  '0.1e1',
];

export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1, -1, 0.001, 0.01, 0.99, 1.5, 2.005, 100.999, 1e15, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE, -1e-7),
  fc.constantFrom(...RAW_NUMBERS).map((t) => new Raw(t)),
  // "NaN-as-string" and friends: numbers sent as strings.
  fc.constantFrom('NaN', '1', '1.50', '1e309', '-0', 'Infinity', '0x1F', ' 5 '),
);

export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: hostileNumber, weight: 3 },
  { arbitrary: fc.constantFrom(true, false, null), weight: 2 },
);

/** Any JSON-ish value: scalars, nested objects with hostile keys, arrays, and the big/deep ones. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: hostileScalar, weight: 6 },
    { arbitrary: fc.array(tie('v'), { maxLength: 5 }), weight: 2 },
    {
      arbitrary: fc
        .array(fc.tuple(fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 12 })), tie('v')), { maxLength: 5 })
        .map(ownObject),
      weight: 2,
    },
    { arbitrary: fc.constantFrom(...BIG_ARRAYS, ...DEEP_VALUES), weight: 1 },
  ),
})).v;

/** fast-check's own generators too (jsonValue, anything, object). */
const libraryValues: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.anything({ maxDepth: 3, maxKeys: 6, withNullPrototype: true }),
  fc.object({ maxDepth: 3, maxKeys: 6 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
);

/** An object whose keys are the schema's own (so values get checked) mixed with hostile keys. */
export function hostileObject(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = keys.length
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...keys), weight: 4 },
        { arbitrary: fc.constantFrom(...POLLUTION_KEYS), weight: 1 },
        { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
      )
    : fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 12 }));
  return fc
    .array(fc.tuple(key, fc.oneof({ arbitrary: hostileValue, weight: 3 }, { arbitrary: libraryValues, weight: 1 })), { maxLength: 8 })
    .map(ownObject);
}

export type Mutation =
  | { op: 'delete'; path: string[] }
  | { op: 'set'; path: string[]; value: unknown }
  | { op: 'add'; path: string[]; key: string; value: unknown }
  | { op: 'wrap'; path: string[] };

/** Every path (list of keys / indexes) inside a JSON example, root included. */
export function pathsOf(v: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...pathsOf(x, [...prefix, String(i)])));
  else if (v && typeof v === 'object')
    for (const k of Object.keys(v)) out.push(...pathsOf((v as Record<string, unknown>)[k], [...prefix, k]));
  return out;
}

function clone(v: unknown): unknown {
  if (v instanceof Raw) return v;
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === 'object') return ownObject(Object.keys(v).map((k) => [k, clone((v as Record<string, unknown>)[k])]));
  return v;
}

/** Apply mutations to a deep copy of `example`. */
export function mutate(example: unknown, mutations: Mutation[]): unknown {
  let root = clone(example);
  for (const m of mutations) {
    if (m.path.length === 0) {
      if (m.op === 'set') root = m.value;
      else if (m.op === 'wrap') root = [root];
      else if (m.op === 'add' && root && typeof root === 'object' && !Array.isArray(root))
        (root as Record<string, unknown>)[m.key] = m.value;
      continue;
    }
    let parent: unknown = root;
    for (const k of m.path.slice(0, -1)) parent = parent && typeof parent === 'object' ? (parent as Record<string, unknown>)[k] : undefined;
    if (!parent || typeof parent !== 'object' || parent instanceof Raw) continue;
    const last = m.path[m.path.length - 1]!;
    const p = parent as Record<string, unknown>;
    if (m.op === 'delete') {
      if (Array.isArray(p)) p.splice(Number(last), 1);
      else delete p[last];
    } else if (m.op === 'set') Object.defineProperty(p, last, { value: m.value, enumerable: true, writable: true, configurable: true });
    else if (m.op === 'wrap') p[last] = [p[last]];
    else if (m.op === 'add') {
      const target = p[last];
      if (target && typeof target === 'object' && !Array.isArray(target) && !(target instanceof Raw)) {
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}

/** "Almost valid": 1-3 mutations of a valid example (a field removed, retyped, wrapped, or an extra key). */
export function almostValid(example: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(example);
  const path = fc.constantFrom(...paths);
  const inner = paths.filter((p) => p.length > 0);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    // (never fc.filter with a predicate that may never hold: generation would spin forever)
    inner.length
      ? fc.constantFrom(...inner).map((p): Mutation => ({ op: 'delete', path: p }))
      : fc.constant<Mutation>({ op: 'wrap', path: [] }),
    fc.tuple(path, hostileValue).map(([p, value]): Mutation => ({ op: 'set', path: p, value })),
    fc.tuple(path, hostileScalar).map(([p, value]): Mutation => ({ op: 'set', path: p, value })),
    fc
      .tuple(path, fc.oneof(fc.constantFrom(...POLLUTION_KEYS), fc.string({ maxLength: 10 })), hostileValue)
      .map(([p, key, value]): Mutation => ({ op: 'add', path: p, key, value })),
    path.map((p): Mutation => ({ op: 'wrap', path: p })),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => mutate(example, ms));
}

/** Malformed or odd body TEXT (not JSON, truncated, duplicate keys, BOM, raw numbers). */
export function oddText(example: unknown): fc.Arbitrary<string> {
  const valid = jsonText(example);
  return fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '{',
      '}',
      '[',
      'null',
      'true',
      '0',
      '"x"',
      '[]',
      '{}',
      'NaN',
      '{"a":1,}',
      "{'a':1}",
      '\ufeff{}',
      '{"a":1}{"b":2}',
      '\u0000',
    ),
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((n) => valid.slice(0, n)),
    fc.constant(valid.replace(/^\{/, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},')),
    fc.constant(valid.length > 2 ? `${valid.slice(0, -1)},${valid.slice(1)}` : valid), // every key twice
    fc.string({ unit: 'binary', maxLength: 60 }),
  );
}

/** A body for a route: random objects over its schema keys, library values, hostile values, mutations of the example, odd text. */
export function bodyArbitrary(keys: string[], example: unknown | undefined): fc.Arbitrary<{ text: string }> {
  const values: fc.WeightedArbitrary<unknown>[] = [
    { arbitrary: hostileObject(keys), weight: 4 },
    { arbitrary: hostileValue, weight: 2 },
    { arbitrary: libraryValues, weight: 2 },
  ];
  if (example !== undefined) values.push({ arbitrary: almostValid(example), weight: 6 });
  return fc.oneof(
    { arbitrary: fc.oneof(...values).map((v) => ({ text: jsonText(v) })), weight: 9 },
    { arbitrary: oddText(example ?? {}).map((text) => ({ text })), weight: 1 },
  );
}

/**
 * Requests are limited to what reaches a Lambda at all: API Gateway refuses a request line
 * plus headers over 10 KB itself (the local server answers 431), so query and path values
 * stay within a few KB once percent-encoded.
 */
const urlSafe = (s: string, max = 1_500) => {
  let v = s.slice(0, max);
  while (v.length && encodeURIComponent(isWellFormed(v) ? v : v.slice(0, -1)).length > 6_000) v = v.slice(0, Math.floor(v.length / 2));
  return v;
};

/** A query: the schema's keys (and others) with hostile string values, sometimes repeated. */
export function queryArbitrary(
  keys: string[],
  example: Record<string, string> | undefined,
): fc.Arbitrary<Record<string, string | string[]>> {
  const key = fc.oneof(
    { arbitrary: keys.length ? fc.constantFrom(...keys) : fc.constant('q'), weight: 4 },
    { arbitrary: fc.constantFrom(...POLLUTION_KEYS), weight: 1 },
    { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
  );
  const value = fc.oneof(
    { arbitrary: hostileString.map((v) => urlSafe(v)), weight: 5 },
    {
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '101',
        '100',
        '1',
        '1.5',
        '1e2',
        '00020',
        '９',
        '20 ',
        'true',
        'True',
        '2026-01-01',
        '2026-13-01T00:00:00Z',
        '2026-01-01T00:00:00+25:00',
      ),
      weight: 3,
    },
    {
      arbitrary: fc.array(
        hostileString.map((v) => urlSafe(v, 300)),
        { minLength: 2, maxLength: 4 },
      ),
      weight: 1,
    },
  );
  const random = fc.array(fc.tuple(key, value), { maxLength: 6 }).map((e) => ownObject(e) as Record<string, string | string[]>);
  if (!example) return random;
  const near = fc.tuple(fc.constantFrom(...Object.keys(example)), value, fc.boolean()).map(([k, v, drop]) => {
    const q: Record<string, string | string[]> = { ...example };
    if (drop) delete q[k];
    else q[k] = v;
    return q;
  });
  return fc.oneof({ arbitrary: random, weight: 3 }, { arbitrary: near, weight: 2 });
}

/**
 * Malformed percent-encoding as a client may send it (DESIGN 8.1: the resource's 404, never
 * 5xx): truncated and invalid escapes, overlong and surrogate UTF-8, lone `%`, mixed in with
 * well-encoded text.
 */
const MALFORMED_ESCAPES = [
  '%',
  '%%',
  '%2',
  '%0G',
  '%ZZ',
  '%u0041',
  '%E0%A4%A',
  '%C3%28',
  '%C0%AF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%FF',
  '%80',
  '%E2%82',
];
export const malformedPercentSegment: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('', 'sch_', 'rfd_x', 'whe_', 'dlv_', 'abc'),
    fc.array(fc.constantFrom(...MALFORMED_ESCAPES), { minLength: 1, maxLength: 3 }),
    fc.string({ maxLength: 8 }).map((x) => encodeURIComponent(urlSafe(x).replace(/[\uD800-\uDFFF]/g, ''))),
  )
  .map(([prefix, escapes, suffix]) => `${prefix}${escapes.join('')}${suffix}`);

/** Path parameter values as sent on the wire (already percent-encoded, or malformed on purpose). */
export const pathParamArbitrary: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: hostileString
      .map((s) => urlSafe(s))
      .filter((s) => s.length > 0 && isWellFormed(s))
      .map(encodeURIComponent),
    weight: 5,
  },
  {
    arbitrary: fc
      .constantFrom(
        '.',
        '..',
        '%',
        '%2F',
        '~',
        'a b',
        'a/b',
        '*',
        'null',
        '0',
        '-1',
        'whe_0000000000000000000000',
        'dlv_0',
        'breq_k0',
        'sch_x',
        'rfd_x',
        'dec_x',
        'x'.repeat(2_000),
        // Longer than any id (DESIGN 9.2), and past DynamoDB's 2,048-byte partition key.
        'x'.repeat(129),
        'x'.repeat(2_100),
        'k'.repeat(4_000),
      )
      .map(encodeURIComponent),
    weight: 2,
  },
  { arbitrary: malformedPercentSegment, weight: 3 },
);

export function isWellFormed(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** A generated value that fast-check prints short (counterexamples can be megabytes). */
export class Shown<T> {
  constructor(readonly value: T) {}
  [fc.toStringMethod](): string {
    const text = typeof this.value === 'string' ? this.value : jsonText(this.value);
    return text.length > 300 ? `${JSON.stringify(text.slice(0, 300))}… (${text.length} chars)` : JSON.stringify(text);
  }
}
export const shown = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<Shown<T>> =>
  arb.map(
    (v) => new Shown(v),
    (s) => (s as Shown<T>).value,
  );

// ---------------------------------------------------------------------------------------
// Response checks

export interface FuzzResponse {
  status: number;
  body: unknown;
}

/** The spec's error envelope for `status`. */
export function isErrorEnvelope(body: unknown, status: number): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return b.statusCode === status && b.success === false && typeof b.message === 'string' && b.message.length > 0;
}

/** Multi-status routes (bill, pay, intent) answer with an array of elements. */
export function isElementArray(body: unknown, success?: boolean): boolean {
  return (
    Array.isArray(body) &&
    body.length > 0 &&
    body.every(
      (e) =>
        e &&
        typeof e === 'object' &&
        typeof (e as Record<string, unknown>).statusCode === 'number' &&
        typeof (e as Record<string, unknown>).message === 'string' &&
        (success === undefined
          ? typeof (e as Record<string, unknown>).success === 'boolean'
          : (e as Record<string, unknown>).success === success),
    )
  );
}

/**
 * What is wrong with a response (undefined: nothing): never a 5xx, never a 429 here; a 4xx
 * is the error envelope (or, on a multi-status route, an array of failed elements); a 2xx
 * is a success envelope (or an element array).
 */
export function envelopeProblem(r: FuzzResponse, opts: { multiStatus?: boolean; publicRoute?: boolean } = {}): string | undefined {
  if (r.status >= 500) return `5xx: ${r.status} ${JSON.stringify(r.body)?.slice(0, 300)}`;
  if (opts.publicRoute) return undefined;
  if (typeof r.body === 'string' || r.body === undefined) return `not JSON: ${r.status} ${String(r.body).slice(0, 200)}`;
  if (r.status >= 400) {
    if (isErrorEnvelope(r.body, r.status)) return undefined;
    if (opts.multiStatus && isElementArray(r.body, false) && (r.body as { statusCode: number }[]).every((e) => e.statusCode === r.status))
      return undefined;
    return `not the error envelope: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
  }
  if (r.status >= 200 && r.status < 300) {
    if (opts.multiStatus && isElementArray(r.body)) return undefined;
    const b = r.body as Record<string, unknown>;
    if (b && typeof b === 'object' && !Array.isArray(b) && b.statusCode === r.status && b.success !== false) return undefined;
    return `not a success envelope: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
  }
  return `unexpected status ${r.status}`;
}
