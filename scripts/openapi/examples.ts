/**
 * Worked examples of the reference, recorded from the integration tests' real requests and
 * answers (docs/decisions/openapi-examples.md):
 *
 * 1. `RECORD_EXAMPLES=1 npx vitest run --project integration` : the test client
 *    (test/support/examples.ts) appends each 2xx it sees, normalised by `normaliseExample`
 *    (ids, keys, secrets, tokens, e-mails, URLs and times become stable placeholders: no
 *    secret is ever written in clear), to `.local/examples/<process>.jsonl`;
 * 2. `npm run openapi:examples` picks one example per operation and success status
 *    (`pickExamples`) and writes `scripts/openapi/examples.json` (committed);
 * 3. `npm run openapi` merges that file into both documents (`applyExamples`), and
 *    test/docs/openapi.test.ts fails when an operation has no example or one does not
 *    validate against its schema.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Json = Record<string, unknown>;

export const EXAMPLES_PATH = 'scripts/openapi/examples.json';
/**
 * The key prefix of an event's payload example (`webhook billing.response`): recorded from the
 * events API's answers (each event as its webhook delivers it), shown under the document's
 * `webhooks`.
 */
export const WEBHOOK_EXAMPLE = 'webhook';
export const RECORDINGS_DIR = '.local/examples';
const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

/** One request and its 2xx answer, as recorded. */
export interface Recorded {
  /** `METHOD /path/{param}` (the route table's key). */
  route: string;
  stage: 'sandbox' | 'live';
  status: number;
  request?: unknown;
  response: unknown;
}

/** The committed file: per route key, per success status, the request body (if any) and the answer. */
export type ExamplesFile = Record<string, Record<string, { request?: unknown; response: unknown }>>;

// ---------------------------------------------------------------------------------------
// Normalising: what is random in a run becomes a stable placeholder, the same value the same
// placeholder within one example (an id in the request and in the answer stays one id).

/** The first Monday this document's examples live in. */
const BASE_DAY = Date.parse('2026-11-02T00:00:00.000Z');
const WEEK = 7 * 86_400_000;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const KEY = /sk_(sandbox|live)_[A-Za-z0-9]{20,}/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=]{16,}/g;
const ID = /^([a-z][a-z0-9]{1,7})_([A-Za-z0-9]{8,})$/;
/** An opaque token with a kind prefix (an agreementPhrase `ap_…`, a lookup phrase ...). */
const TOKEN = /^([a-z]{2,6})_[A-Za-z0-9_-]{32,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Fields whose value is a credential or a capability, whatever it looks like. */
const SECRET_FIELDS = new Set(['apiKey', 'secret', 'previousSecret', 'token', 'agreementPhrase', 'accessToken', 'refreshToken']);
const LOCAL_URL = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/;

class Normaliser {
  private readonly seen = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  private offset: number | undefined;

  constructor(
    private readonly scrub: readonly string[],
    firstTime: number | undefined,
  ) {
    // Whole weeks: weekdays (business days, settlement dates) stay what they were.
    if (firstTime !== undefined) this.offset = Math.ceil((BASE_DAY - firstTime) / WEEK) * WEEK;
  }

  private placeholder(kind: string, value: string, make: (n: number) => string): string {
    const key = `${kind}\u0000${value}`;
    let out = this.seen.get(key);
    if (!out) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      out = make(n);
      this.seen.set(key, out);
    }
    return out;
  }

  string(value: string, field: string | undefined): string {
    // An API version is a name that looks like a date: never shifted with the example's times
    // (an event recorded on a test clock years ahead keeps the version it was written at).
    if (field === 'apiVersion') return value;
    if (field && SECRET_FIELDS.has(field) && value.length > 0) {
      const prefix = /^(sk_(sandbox|live)_|whsec_)/.exec(value)?.[1];
      if (!prefix) return this.placeholder('secret', value, (n) => `example_${field}_${n}`);
    }
    const keys = value.replace(KEY, (k, stage: string) =>
      this.placeholder('key', k, (n) => `sk_${stage}_${`ExampleKey${n}`.padEnd(40, '0')}Chk000`),
    );
    const secrets = keys.replace(WEBHOOK_SECRET, (s) =>
      this.placeholder('whsec', s, (n) => `whsec_${`ExampleSecret${n}`.padEnd(40, '0')}`),
    );
    if (secrets !== value) return secrets;
    let v = value;
    const token = TOKEN.exec(v);
    if (token) return this.placeholder(`token:${token[1]}`, v, (n) => `${token[1]}_${`ExampleToken${n}`.padEnd(40, '0')}`);
    for (const s of this.scrub) if (s) v = v.split(s).join('example');
    if (this.offset !== undefined && DATE_TIME.test(v)) return new Date(Date.parse(v) + this.offset).toISOString();
    if (this.offset !== undefined && DATE.test(v)) return new Date(Date.parse(`${v}T12:00:00Z`) + this.offset).toISOString().slice(0, 10);
    const id = ID.exec(v);
    if (id && /\d/.test(id[2]!) && /[A-Z]|[a-z]/.test(id[2]!))
      return this.placeholder(`id:${id[1]}`, v, (n) => `${id[1]}_${`example${n}`.padEnd(Math.min(id[2]!.length, 24), '0')}`);
    if (UUID.test(v)) return this.placeholder('uuid', v, (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
    if (LOCAL_URL.test(v)) {
      const url = new URL(v.replace(LOCAL_URL, 'https://example.com'));
      for (const k of [...url.searchParams.keys()]) url.searchParams.set(k, 'example');
      return url.toString();
    }
    return v;
  }

  value(value: unknown, field?: string): unknown {
    if (typeof value === 'string') return this.string(value, field);
    if (Array.isArray(value)) return value.map((x) => this.value(x, field));
    if (value && typeof value === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.value(v, k);
      return out;
    }
    return value;
  }
}

/** The earliest instant any date-time string of `values` names (the example's "now"). */
function firstTime(values: unknown[]): number | undefined {
  let first: number | undefined;
  const walk = (v: unknown) => {
    if (typeof v === 'string' && DATE_TIME.test(v)) {
      const t = Date.parse(v);
      if (first === undefined || t < first) first = t;
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  values.forEach(walk);
  return first;
}

/** Lists in an answer keep their first `max` items (an example, not a dump). */
function shorten(value: unknown, max = 3): unknown {
  if (Array.isArray(value)) return value.slice(0, max).map((x) => shorten(x, max));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v, max)]));
  return value;
}

/**
 * The example of one recorded exchange: placeholders for everything random (`scrub` lists
 * the run's own random tokens, e.g. a test app's name suffix), at most 3 items per list.
 */
export function normaliseExample(rec: Recorded, scrub: readonly string[] = []): Recorded {
  const n = new Normaliser(scrub, firstTime([rec.request, rec.response]));
  const request = rec.request === undefined ? undefined : n.value(rec.request);
  const response = n.value(shorten(rec.response));
  return { ...rec, ...(request === undefined ? {} : { request }), response };
}

// ---------------------------------------------------------------------------------------
// Picking and merging

const size = (r: Recorded) => JSON.stringify(r).length;
const LIMIT = 2500;

/**
 * One example per route and success status: a sandbox one when there is one, the fullest that
 * stays short (at most 2,500 characters), else the shortest; ties by text (deterministic).
 */
/** Answers quoted in part: the document's own route would quote the whole document (and the other stage's schemas). */
function abridged(route: string, response: unknown): unknown {
  if (route !== 'GET /v1/openapi.json' || typeof response !== 'object' || response === null) return response;
  const doc = response as Json;
  const info = (doc.info ?? {}) as Json;
  return { openapi: doc.openapi, info: { title: info.title, version: info.version }, paths: {}, components: {} };
}

export function pickExamples(records: readonly Recorded[]): ExamplesFile {
  const groups = new Map<string, Recorded[]>();
  for (const r of records) {
    const key = `${r.route}\u0000${r.status}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const out: ExamplesFile = {};
  for (const key of [...groups.keys()].sort()) {
    const all = groups.get(key)!;
    const pool = all.some((r) => r.stage === 'sandbox') ? all.filter((r) => r.stage === 'sandbox') : all;
    const order = (a: Recorded, b: Recorded) => size(a) - size(b) || JSON.stringify(a).localeCompare(JSON.stringify(b));
    const short = pool.filter((r) => size(r) <= LIMIT).sort(order);
    const best = short.length ? short[short.length - 1]! : [...pool].sort(order)[0]!;
    (out[best.route] ??= {})[String(best.status)] = {
      ...(best.request === undefined ? {} : { request: best.request }),
      response: abridged(best.route, best.response),
    };
  }
  return out;
}

export function loadExamples(): ExamplesFile {
  const path = resolve(ROOT, EXAMPLES_PATH);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ExamplesFile) : {};
}

/** A live document's examples show live keys. */
function forStage(value: unknown, stage: 'sandbox' | 'live'): unknown {
  if (stage === 'sandbox') return value;
  return JSON.parse(JSON.stringify(value).replace(/sk_sandbox_/g, 'sk_live_'));
}

/**
 * Puts each example on its operation: the request body's `example` and each success
 * response's `example` (its JSON, or for a page its text).
 */
export function applyExamples(
  paths: Record<string, Json>,
  routeKeyOf: (method: string, path: string) => string,
  stage: 'sandbox' | 'live',
): void {
  const examples = loadExamples();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item) as [string, Json][]) {
      const byStatus = examples[routeKeyOf(method, path)];
      if (!byStatus) continue;
      const responses = op.responses as Record<string, Json>;
      for (const [status, ex] of Object.entries(byStatus)) {
        const content = responses[status]?.content as Record<string, Json> | undefined;
        if (!content) continue;
        const media = content['application/json'] ?? content['text/html'];
        if (media) media.example = forStage(ex.response, stage);
        const requestBody = op.requestBody as Json | undefined;
        const body = requestBody?.content as Record<string, Json> | undefined;
        // A recorded call that sent no body to a route whose body is optional sent the empty one.
        const request = ex.request ?? (requestBody && requestBody.required !== true ? {} : undefined);
        if (request !== undefined && body?.['application/json'] && body['application/json'].example === undefined)
          body['application/json'].example = forStage(request, stage);
      }
    }
  }
}

/** Puts each event type's recorded payload on its webhook's request body. */
export function applyWebhookExamples(hooks: Record<string, Json>, stage: 'sandbox' | 'live'): void {
  const examples = loadExamples();
  for (const [type, hook] of Object.entries(hooks)) {
    const ex = examples[`${WEBHOOK_EXAMPLE} ${type}`]?.['200'];
    const media = (((hook.post as Json).requestBody as Json).content as Record<string, Json>)['application/json'];
    if (ex && media) media.example = forStage(ex.response, stage);
  }
}

/** `npm run openapi:examples`: the recordings of the last recording run -> examples.json. */
function main() {
  const dir = resolve(ROOT, RECORDINGS_DIR);
  if (!existsSync(dir))
    throw new Error(`No recordings in ${RECORDINGS_DIR}: run RECORD_EXAMPLES=1 npx vitest run --project integration first`);
  const records: Recorded[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(resolve(dir, f), 'utf8').split('\n')) if (line.trim()) records.push(JSON.parse(line) as Recorded);
  }
  const picked = pickExamples(records);
  // Operations recorded before and not in this run keep their example.
  const merged = { ...loadExamples(), ...picked };
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]]),
  );
  writeFileSync(resolve(ROOT, EXAMPLES_PATH), `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(
    `${records.length} recordings -> ${Object.keys(picked).length} operations (${Object.keys(sorted).length} in ${EXAMPLES_PATH})`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
