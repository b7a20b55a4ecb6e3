/**
 * Property-based fuzzing of the whole HTTP surface (reliability suite 1), generated
 * from THE route table: every POST/PUT/PATCH body, every query and every path parameter of
 * every route, sent by the right participant (a provider with X-Entity-Id on merchant
 * routes too) against the real local stack. Properties, for every generated request:
 *
 *   - never a 5xx (and never a non-JSON body on an authenticated route);
 *   - a 4xx is the error envelope `{statusCode, success: false, message}` (bill, pay and
 *     intent may answer an array of failed elements with the same status);
 *   - a 2xx (the rare valid input) is a success envelope;
 *   - after a rejected request the table is unchanged (Scan before/after; rate-limit
 *     counters and idempotency records excluded). The handlers run in this process: a
 *     request during which their client made no table write is not Scanned (the Scan
 *     checks every request that wrote; test/support/fuzz.ts `watchTableWrites`).
 *
 * Runs per property: FUZZ_RUNS, default 15 (npm test) or 300 with RELIABILITY_LONG=1
 * (npm run test:reliability). Seed: FUZZ_SEED (default 20261122) + a per-property offset;
 * a failure prints fast-check's seed and path to replay it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basename, dirname } from 'node:path';
import { loadHandler } from '../../local/lambda';
import { responsesOf } from '../../scripts/openapi/generate';
import { ROUTES, routeKey, type Route } from '../../functions/routes';
import { startTestApp, type TestApp } from '../support/app';
import {
  bodyArbitrary,
  diffSnapshots,
  envelopeProblem,
  jsonText,
  mutate,
  pathParamArbitrary,
  pathsOf,
  queryArbitrary,
  Raw,
  shown,
  snapshotTable,
  type Snapshot,
  watchTableWrites,
} from '../support/fuzz';
import { startReceiver, type Receiver } from '../../local/receiver';
import { buildGroup, exampleFor, pathFor, withPeople, type Group } from '../support/reliability-world';
import { signUpAndIn, type SignedIn } from '../support/people';
import { mapLimit } from '../../functions/platform/retry';
import { edgeQueries, edgeQueryArbitrary } from '../support/query-edges';

const LONG = process.env.RELIABILITY_LONG === '1';
const RUNS = Number(process.env.FUZZ_RUNS || (LONG ? 300 : 15));
const SEED = Number(process.env.FUZZ_SEED || 20261122);
/** Routes answering one element per input (their responses declare `elements`): filled in beforeAll. */
const MULTI_STATUS = new Set<string>();

let t: TestApp;
let rx: Receiver;
let g: Group;
let person: SignedIn;
let signingOut: SignedIn;
let snap: Snapshot;
/** Table writes of the handlers (they run in this process): a rejected request that made none is not Scanned. */
let writes: ReturnType<typeof watchTableWrites> | undefined;
const tally = new Map<string, Record<string, number>>();

beforeAll(async () => {
  for (const r of ROUTES) {
    if ((await responsesOf(dirname(r.handler)))[basename(r.handler)]?.elements) MULTI_STATUS.add(routeKey(r));
  }
  // One delivery attempt: an endpoint a valid fuzzed body created at an unreachable address
  // fails at once instead of retrying (and changing the table) in the middle of later runs.
  // A day's approval window: the world's pending one-time pay must not expire in real time
  // during a long run (a bank answer after expiry rightly expires it then, a legitimate write).
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_MAX_ATTEMPTS: '1', APPROVAL_WINDOW_SECONDS: '86400' });
  rx = await startReceiver();
  g = await buildGroup(t, rx, 'fz');
  g.people = await withPeople(t);
  person = g.people.person;
  signingOut = await signUpAndIn();
  await t.app.settle();
  snap = await snapshotTable();
  if (process.env.LOCAL_ARTIFACTS !== '1') writes = watchTableWrites();
}, 120_000);

afterAll(async () => {
  if (tally.size && (LONG || process.env.FUZZ_REPORT)) {
    const lines = [...tally].map(
      ([k, v]) =>
        `${k.padEnd(72)} ${Object.entries(v)
          .map(([s, c]) => `${s}:${c}`)
          .join(' ')}`,
    );
    console.log(`fuzz status tally (runs per property ${RUNS}, seed ${SEED}):\n${lines.join('\n')}`);
  }
  writes?.remove();
  await rx?.close();
  await t?.stop();
});

interface Caller {
  label: string;
  key?: string;
  headers: Record<string, string>;
}

function callersFor(route: Route): Caller[] {
  if (route.kinds.length === 0) return [{ label: 'public', headers: {} }];
  // People's routes (DESIGN 8.3): a signed-in person, owner of their own participant.
  // Signing out ends the session it is called with: a person of its own, so the others keep theirs.
  if (routeKey(route) === 'POST /v1/me/sign-out') return [{ label: 'person signing out', key: signingOut.accessToken, headers: {} }];
  if (route.caller)
    return [
      { label: 'person', key: person.accessToken, headers: {} },
      // An id header longer than any id (DESIGN 9.2): 400 before anything is read.
      { label: 'person, over-long X-Participant-Id', key: person.accessToken, headers: { 'x-participant-id': 'p'.repeat(1_100) } },
    ];
  const out: Caller[] = [];
  if (route.kinds.includes('operator')) out.push({ label: 'operator', key: t.operatorKey, headers: {} });
  if (route.kinds.includes('merchant')) {
    out.push({ label: 'merchant', key: g.merchant.apiKey, headers: {} });
    out.push({ label: 'provider for merchant', key: g.provider.apiKey, headers: { 'x-entity-id': g.merchant.id } });
    out.push({ label: 'provider, over-long X-Entity-Id', key: g.provider.apiKey, headers: { 'x-entity-id': 'm'.repeat(1_100) } });
    out.push({ label: 'merchant, over-long X-Test-Clock', key: g.merchant.apiKey, headers: { 'x-test-clock': 'c'.repeat(1_100) } });
  }
  // Bank and provider callers on routes that also allow merchants would not own group A's path ids; they still reach validation.
  if (route.kinds.includes('bank')) out.push({ label: 'bank', key: g.bank.apiKey, headers: {} });
  if (route.kinds.includes('provider') && !route.kinds.includes('merchant'))
    out.push({ label: 'provider', key: g.provider.apiKey, headers: {} });
  return out;
}

function schemaKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape && typeof shape === 'object' ? Object.keys(shape) : [];
}

/** Idempotency-Key values: none, empty, ordinary, or over the 255-character limit. */
const idemKey = fc.option(
  fc.oneof(
    fc.constant(''),
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'k')),
    fc.constant('k'.repeat(256)),
  ),
  {
    nil: undefined,
    freq: 3,
  },
);

interface Sent {
  method: string;
  path: string;
  caller: Caller;
  headers: Record<string, string>;
  rawBody?: string;
  query?: Record<string, string | string[]>;
}

async function send(route: Route, req: Sent): Promise<void> {
  if (process.env.FUZZ_TRACE)
    console.log(`fuzz> ${req.method} ${req.path.slice(0, 120)} ${req.rawBody?.length ?? 0}B ${req.rawBody?.slice(0, 120)}`);
  const wroteBefore = writes?.count();
  const r = await t.call(req.method, req.path, { key: req.caller.key, headers: req.headers, rawBody: req.rawBody, query: req.query });
  const k = `${routeKey(route)}`;
  const counts = tally.get(k) ?? {};
  counts[String(r.status)] = (counts[String(r.status)] ?? 0) + 1;
  tally.set(k, counts);
  const what = () =>
    `${req.method} ${req.path} as ${req.caller.label} headers=${JSON.stringify(req.headers)} query=${JSON.stringify(req.query)?.slice(0, 400)} body=${req.rawBody?.slice(0, 400)}`;
  const problem = envelopeProblem(r, { multiStatus: MULTI_STATUS.has(k), publicRoute: route.kinds.length === 0 });
  if (problem) throw new Error(`${problem}\n  request: ${what()}`);
  if (r.status === 429) throw new Error(`rate limited during fuzzing: ${what()}`);
  if (!r.headers.get('x-request-id'))
    throw new Error(`${r.status} without X-Request-Id (the handler itself failed?)\n  request: ${what()}`);
  // No write by the handlers: the table is as it was (for a rejection, what the property asks;
  // for a valid read, the baseline stands).
  if (wroteBefore !== undefined && writes!.count() === wroteBefore) return;
  if (r.status >= 400) {
    const after = await snapshotTable();
    const diff = diffSnapshots(snap, after);
    if (diff.length) {
      // Let its after-effects (deliveries) finish, so the failure does not leak into the next property.
      await t.app.settle().catch(() => undefined);
      snap = await snapshotTable();
      throw new Error(
        `rejected request (${r.status} ${JSON.stringify(r.body).slice(0, 200)}) changed the table:\n  ${diff.join('\n  ')}\n  request: ${what()}`,
      );
    }
  } else {
    // A valid input: its writes (and deliveries) are legitimate; take a new baseline.
    await t.app.settle();
    snap = await snapshotTable();
  }
}

const timeout = Math.max(60_000, RUNS * 3_000);
const routeIndex = new Map(ROUTES.map((r, i) => [routeKey(r), i]));
const seedFor = (route: Route, aspect: number) => SEED + routeIndex.get(routeKey(route))! * 97 + aspect;

describe('the write watch that spares Scans', () => {
  it("counts a request that writes, and not one that only stamps the caller's rate window", async () => {
    const before = writes!.count();
    const read = await t.call('GET', '/v1/merchant/retry-policy', { key: g.merchant.apiKey });
    expect(read.status).toBe(200);
    expect(writes!.count()).toBe(before);
    const put = await t.call('PUT', '/v1/merchant/retry-policy', { key: g.merchant.apiKey, body: { retryAfterDays: [1, 1, 1] } });
    expect(put.status).toBe(200);
    expect(writes!.count()).toBeGreaterThan(before);
    await t.app.settle();
    snap = await snapshotTable();
  });
});

// Reads and path parameters first, while the table is small (every rejected request is
// checked with a full Scan); valid fuzzed bodies then add items.
describe('fuzzed queries (every route with a query schema, and every GET)', () => {
  for (const route of ROUTES.filter((r) => r.method === 'GET')) {
    it(`${routeKey(route)}: never 5xx, always the envelope, no write when rejected`, { timeout }, async () => {
      const spec = ((await loadHandler(route.handler)) as unknown as { spec?: { query?: unknown } }).spec ?? {};
      const example = exampleFor(route, g, rx.url);
      const callers = callersFor(route);
      await fc.assert(
        fc.asyncProperty(
          shown(queryArbitrary(schemaKeys(spec.query), example.query)),
          fc.constantFrom(...callers.map((c) => c.label)),
          async (query, label) => {
            const caller = callers.find((c) => c.label === label)!;
            await send(route, { method: route.method, path: pathFor(route, g), caller, headers: caller.headers, query: query.value });
          },
        ),
        { numRuns: RUNS, seed: seedFor(route, 2), endOnFailure: !process.env.FUZZ_SHRINK },
      );
    });
  }
  it('covers every route with a query schema', async () => {
    for (const route of ROUTES) {
      const spec = ((await loadHandler(route.handler)) as unknown as { spec?: { query?: unknown } }).spec ?? {};
      if (spec.query) expect(route.method, `${routeKey(route)} has a query schema but is not fuzzed`).toBe('GET');
    }
  });
});

/**
 * Every query parameter of every route at its edges (DESIGN 9.2, 10.3): never a 5xx, always
 * the envelope. Each key at each edge alone over a valid query (so an edge that validation lets
 * through reaches the handler: `from=9999-12-31` answered 500 in the volume report), every key
 * at the same edge at once, then random mixes with repeated keys. Reads only (GET): the table
 * checks of the other properties are left out to keep the sweep cheap.
 */
describe('query parameters at their edges (every route with a query schema)', () => {
  for (const route of ROUTES.filter((r) => r.method === 'GET')) {
    it(`${routeKey(route)}: no 5xx at any edge`, { timeout }, async () => {
      const spec = ((await loadHandler(route.handler)) as unknown as { spec?: { query?: unknown } }).spec ?? {};
      const keys = schemaKeys(spec.query);
      if (keys.length === 0) return;
      const example = exampleFor(route, g, rx.url).query;
      const path = pathFor(route, g);
      const caller = callersFor(route).find(
        (c) => !c.headers['x-participant-id'] && !Object.values(c.headers).some((v) => v.length > 128),
      )!;
      const check = async (query: Record<string, string | string[]>) => {
        const r = await t.call(route.method, path, { key: caller.key, headers: caller.headers, query });
        const problem = envelopeProblem(r, { publicRoute: route.kinds.length === 0 });
        if (problem)
          throw new Error(`${problem}\n  request: ${route.method} ${path} as ${caller.label} query=${JSON.stringify(query).slice(0, 300)}`);
      };
      await mapLimit(edgeQueries(keys, example), 4, check);
      await fc.assert(
        fc.asyncProperty(shown(edgeQueryArbitrary(keys, example)), (q) => check(q.value)),
        {
          numRuns: RUNS,
          seed: seedFor(route, 4),
          endOnFailure: !process.env.FUZZ_SHRINK,
        },
      );
    });
  }
});

describe('fuzzed path parameters (every route with one)', () => {
  for (const route of ROUTES.filter((r) => r.path.includes('{'))) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    it(`${routeKey(route)}: never 5xx, always the envelope, no write when rejected`, { timeout }, async () => {
      const example = exampleFor(route, g, rx.url);
      const callers = callersFor(route);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...names),
          shown(pathParamArbitrary),
          fc.constantFrom(...callers.map((c) => c.label)),
          async (name, value, label) => {
            const caller = callers.find((c) => c.label === label)!;
            await send(route, {
              method: route.method,
              path: pathFor(route, g, {}, { [name]: value.value }),
              caller,
              headers: caller.headers,
              rawBody: example.body === undefined ? undefined : jsonText(example.body),
              query: example.query,
            });
          },
        ),
        { numRuns: RUNS, seed: seedFor(route, 3), endOnFailure: !process.env.FUZZ_SHRINK },
      );
    });
  }
});

describe("nesting past DynamoDB's 32 levels inside otherwise valid bodies", () => {
  it("every field of every route's valid example set to a 40-deep object or array: never 5xx, no write when rejected", {
    timeout,
  }, async () => {
    const deepObject = new Raw(`${'{"k":'.repeat(40)}1${'}'.repeat(40)}`);
    const deepArray = new Raw(`${'['.repeat(40)}1${']'.repeat(40)}`);
    for (const route of ROUTES.filter((r) => r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH')) {
      const example = exampleFor(route, g, rx.url);
      if (example.body === undefined) continue;
      const caller = callersFor(route)[0]!;
      for (const path of pathsOf(example.body).filter((p) => p.length > 0)) {
        for (const value of [deepObject, deepArray]) {
          const body = mutate(exampleFor(route, g, rx.url).body, [{ op: 'set', path, value }]);
          await send(route, {
            method: route.method,
            path: pathFor(route, g),
            caller,
            headers: caller.headers,
            rawBody: jsonText(body),
            query: example.query,
          });
        }
      }
    }
  });
});

describe('fuzzed bodies (every POST/PUT/PATCH route)', () => {
  for (const route of ROUTES.filter((r) => r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH')) {
    it(`${routeKey(route)}: never 5xx, always the envelope, no write when rejected`, { timeout }, async () => {
      const spec = ((await loadHandler(route.handler)) as unknown as { spec?: { body?: unknown } }).spec ?? {};
      const example = exampleFor(route, g, rx.url);
      const callers = callersFor(route);
      await fc.assert(
        fc.asyncProperty(
          shown(bodyArbitrary(schemaKeys(spec.body), example.body)),
          fc.constantFrom(...callers.map((c) => c.label)),
          idemKey,
          async (body, label, idem) => {
            const caller = callers.find((c) => c.label === label)!;
            const headers = { ...caller.headers, ...(idem !== undefined ? { 'idempotency-key': idem } : {}) };
            await send(route, {
              method: route.method,
              path: pathFor(route, g),
              caller,
              headers,
              rawBody: body.value.text,
              query: example.query,
            });
          },
        ),
        { numRuns: RUNS, seed: seedFor(route, 1), endOnFailure: !process.env.FUZZ_SHRINK },
      );
    });
  }
});

describe('after the fuzz workload', () => {
  it('the trial balance computed from the ledger entries is balanced (DESIGN 8.8)', async () => {
    await t.app.settle();
    const r = await t.call('GET', '/v1/operator/ledger/trial-balance', { key: t.operatorKey });
    expect(r.status).toBe(200);
    expect(r.body.data.accounts.length, 'the workload posted to the ledger').toBeGreaterThan(0);
    expect(r.body.data.totalDebit).toBe(r.body.data.totalCredit);
    expect(r.body.data.balanced).toBe(true);
  });
});
