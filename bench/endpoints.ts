/**
 * Endpoint classes against their raw-DynamoDB floor, side by side in one process and one
 * local stack (DynamoDB Local + fauxqs + the local HTTP runtime; SQS pollers off, no tick):
 *
 *   read      GET  /v1/customer-decisions/{id}   (merchant; a random decision of 100)
 *   balance   GET  /v1/balance/details           (merchant)
 *   bill      POST /v1/customer/bill             (one agreementPhrase, random customer of 100)
 *   intent-response POST /v1/billing/intent-response (bank answers a fresh open intent)
 *   batch     POST /v1/bank/customers            (BENCH_BATCH_RECORDS = 50 new records)
 *
 * Per class: warm-up; a probe (5 sequential requests recorded one by one; the DynamoDB
 * commands of the one with the fewest become the floor, bench/lib/floor.ts); a serial run at concurrency 1 (the
 * duration one Lambda invocation would take); then BENCH_ROUNDS rounds of [endpoint at
 * concurrency 16 with autocannon, floor at concurrency 16] interleaved (A/B/A/B) so machine
 * noise hits both. DynamoDB requests and consumed capacity are counted by an SDK middleware
 * on the service's own document client during the endpoint runs.
 *
 *   npx tsx bench/endpoints.ts          (npm run bench runs it as one of its phases)
 */
import { pathToFileURL } from 'node:url';
import { randomToken } from '../functions/domain/ids';
import { db, queue } from '../functions/platform/clients';
import { DdbCounter, SqsCounter, emptyDdbCounts, perUnit, type DdbCounts, type SqsCounts } from './lib/counters';
import { buildFloor, type FloorPlan } from './lib/floor';
import { ServerCounter, runClosedLoop, runEndpointLoad, type HttpRequestSpec, type LoadRun } from './lib/load';
import { loadAverage, machine, outPath, runMain, writeJson } from './lib/results';
import { startBenchStack, type BenchStack, type Party } from './lib/stack';
import { mapLimit, median, round, summarize, type LatencySummary } from './lib/stats';

const QUICK = process.env.BENCH_QUICK === '1';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 2 : 4));
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 4));
const SERIAL_SECONDS = QUICK ? 1 : 2;
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? (QUICK ? 40 : 100));
const BATCH_RECORDS = Number(process.env.BENCH_BATCH_RECORDS ?? 50);
const ONLY = process.env.BENCH_CLASSES?.split(',').filter(Boolean);
const LIMITS = { single: 1000, daily: 1_000_000, weekly: 5_000_000, monthly: 20_000_000 };

export interface ClassResult {
  id: string;
  label: string;
  route: string;
  read: boolean;
  /** What one operation is (DynamoDB figures are per this unit). */
  unit: string;
  floorStages: string[][];
  floorRequests: number;
  endpoint: { rps: number; ok: number; seconds: number; statuses: Record<string, number>; errors: number; latency: LatencySummary };
  floor: { rps: number; ok: number; seconds: number; errors: number; latency: LatencySummary };
  /** endpoint req/s ÷ floor op-sets/s (1 = as fast as the bare DynamoDB requests). */
  ratio: number;
  /** Median of the per-round ratios (a check on the pooled one). */
  ratioMedianOfRounds: number;
  /** endpoint p50 ÷ floor p50. */
  latencyRatioP50: number;
  /** Responses the server finished during the measured runs, by status (requests aborted at a deadline have none). */
  serverStatuses: Record<string, number>;
  /** Requests the handlers served during the measured runs (the unit count of the DynamoDB figures). */
  handledRequests: number;
  rounds: { round: number; endpointRps: number; floorRps: number; ratio: number }[];
  /** Concurrency 1: what one Lambda invocation takes (plus API Gateway), for the cost model. */
  serial: { rps: number; latency: LatencySummary };
  dynamodb: ReturnType<typeof perUnit>;
  floorDynamodb: ReturnType<typeof perUnit>;
  /** Messages the endpoint put on SQS per unit (webhook deliveries after commit). */
  sqsMessagesPerUnit: number;
  /** Bytes of JSON log lines one request writes at LOG_LEVEL=INFO. */
  logBytesPerRequest: number;
}

interface ClassSpec {
  id: string;
  label: string;
  route: string;
  read: boolean;
  unit: string;
  method: 'GET' | 'POST';
  key: () => string;
  next: () => HttpRequestSpec;
  /** Warm-up and probe requests (default `next`): the same customer each time, so the probe sees warm instance caches. */
  probeNext?: () => HttpRequestSpec;
  /** Length of one measured run (default BENCH_SECONDS): long operations need longer windows. */
  seconds?: number;
  /** Before a run that will last `seconds` (e.g. top up a pool of intents). */
  prepare?: (seconds: number, lastRps: number) => Promise<void>;
  exhausted?: () => boolean;
}

function mergeLatencies(runs: LoadRun[]) {
  const lat = runs.flatMap((r) => r.latencies);
  const ok = runs.reduce((a, r) => a + r.ok, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    rps: round(ok / seconds, 1),
    ok,
    seconds: round(seconds, 1),
    statuses,
    errors: runs.reduce((a, r) => a + r.errors, 0),
    latency: summarize(lat),
  };
}

function addCounts(into: DdbCounts, c: DdbCounts) {
  into.requests += c.requests;
  into.httpRequests += c.httpRequests;
  into.attempts += c.attempts;
  into.itemsWritten += c.itemsWritten;
  for (const [k, v] of Object.entries(c.byCommand)) into.byCommand[k] = (into.byCommand[k] ?? 0) + v;
  for (const k of ['auth', 'idempotency', 'app'] as const) into.byPurpose[k] += c.byPurpose[k];
  for (const [k, v] of Object.entries(c.failed)) into.failed[k] = (into.failed[k] ?? 0) + v;
  into.capacity.total += c.capacity.total;
  into.capacity.read += c.capacity.read;
  into.capacity.write += c.capacity.write;
  into.capacity.table += c.capacity.table;
  into.capacity.reported += c.capacity.reported;
  for (const [k, v] of Object.entries(c.capacity.indexes)) into.capacity.indexes[k] = (into.capacity.indexes[k] ?? 0) + v;
  for (const [k, v] of Object.entries(c.capacity.byCommand)) into.capacity.byCommand[k] = (into.capacity.byCommand[k] ?? 0) + v;
  for (const k of Object.keys(c.transactItems) as (keyof DdbCounts['transactItems'])[]) into.transactItems[k] += c.transactItems[k];
}

/** Bytes the handlers log (console.log/error) while `fn` runs at LOG_LEVEL=INFO; nothing is printed. */
async function logBytes(fn: () => Promise<unknown>): Promise<number> {
  const saved = { log: console.log, error: console.error, level: process.env.LOG_LEVEL };
  let bytes = 0;
  const count = (...args: unknown[]) => {
    bytes += Buffer.byteLength(args.map(String).join(' ')) + 1;
  };
  console.log = count;
  console.error = count;
  process.env.LOG_LEVEL = 'INFO';
  try {
    await fn();
  } finally {
    console.log = saved.log;
    console.error = saved.error;
    process.env.LOG_LEVEL = saved.level;
  }
  return bytes;
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

export async function runEndpoints(): Promise<{
  config: Record<string, unknown>;
  setup: Record<string, unknown>;
  classes: ClassResult[];
  lifecycle: Record<string, unknown>;
  loadAverage: { start: number[]; end: number[] };
}> {
  const loadStart = loadAverage();
  const stack: BenchStack = await startBenchStack({ pollers: 0 });
  try {
    const ddb = new DdbCounter().install(db());
    const sqs = new SqsCounter().install(queue());
    const server = new ServerCounter().start();
    const s = stack;
    const tableName = process.env.TABLE_NAME!;

    // ---- parties and agreements (real flows through the API)
    const setupStarted = performance.now();
    const bank = await s.participant('bank');
    const provider = await s.participant('provider');
    const merchant = await s.participant('merchant', { providerId: provider.id });
    await s.must(200, 'PATCH', '/v1/provider/merchant/trust', provider.apiKey, {
      entityId: merchant.id,
      trusted: true,
      trustLevel: 'enhanced',
    });
    // Every party subscribes an endpoint (never reached: pollers are off), so events fan out as in production.
    for (const p of [bank, merchant, provider] as Party[])
      await s.must(201, 'POST', '/v1/webhooks/endpoints', p.apiKey, { url: `http://127.0.0.1:9/${p.id}` });

    let seq = 0;
    const newRecords = (n: number) =>
      Array.from({ length: n }, () => {
        const i = ++seq;
        return {
          clientRef: `CR-${s.run}-${i}`,
          firstname: 'Ada',
          middlename: 'Ngozi',
          lastname: `Obi${i}`,
          accountName: 'Ada Ngozi Obi',
          email: `ada${i}-${s.run}@bench.test`,
          country: 'NG',
          accountNumber: String(1_000_000_000 + i),
          reference: `REF-${s.run}-${i}`,
          address: `${i} Marina Road, Lagos`,
          phone: `+234 803 ${String(1_000_000 + i).slice(-7)}`,
        };
      });
    const records = newRecords(CUSTOMERS);
    const batch = await s.must(201, 'POST', '/v1/bank/customers', bank.apiKey, { customers: records });
    const customerIds: string[] = batch.data.data.customerIds;
    const customers = await mapLimit(customerIds, 8, async (customerId, i) => {
      const found = await s.must(200, 'GET', `/v1/customer/banks?email=${encodeURIComponent(records[i]!.email)}`, merchant.apiKey);
      const lookupPhrase = found.data.banks[0].lookupPhrase as string;
      const intent = await s.must(200, 'POST', '/v1/billing/intent', merchant.apiKey, {
        lookupPhrases: [lookupPhrase],
        currency: 'NGN',
        description: 'Bench',
      });
      const d = await s.must(200, 'POST', '/v1/billing/intent-response', bank.apiKey, {
        customerId,
        entityId: merchant.id,
        lookupPhrase,
        intentId: intent[0].intentId,
        customerDecision: 'approve_recurring',
        spendingLimits: LIMITS,
      });
      return { customerId, lookupPhrase, agreementPhrase: d.data.agreementPhrase as string, decisionId: d.data.id as string };
    });
    const setupMs = Math.round(performance.now() - setupStarted);

    // ---- a pool of open intents for intent-response (each answer needs a fresh one)
    const intents: { customerId: string; lookupPhrase: string; intentId: string }[] = [];
    let intentsCreated = 0;
    const topUpIntents = async (need: number) => {
      for (let i = 0; i < 60 && intents.length < need; i++) {
        const res = await s.must<any[]>(200, 'POST', '/v1/billing/intent', merchant.apiKey, {
          lookupPhrases: customers.map((c) => c.lookupPhrase),
          currency: 'NGN',
          description: 'Bench intent',
        });
        for (const [j, e] of res.entries())
          if (e.intentId) intents.push({ customerId: customers[j]!.customerId, lookupPhrase: e.lookupPhrase, intentId: e.intentId });
        intentsCreated += res.length;
      }
    };
    let lastIntent = { customerId: '', lookupPhrase: '', intentId: '' };

    const json = (x: unknown) => JSON.stringify(x);
    const all: ClassSpec[] = [
      {
        id: 'read',
        label: 'read: GET decision',
        route: 'GET /v1/customer-decisions/{id}',
        read: true,
        unit: 'request',
        method: 'GET',
        key: () => merchant.apiKey,
        next: () => ({ path: `/v1/customer-decisions/${pick(customers).decisionId}` }),
      },
      {
        id: 'balance',
        label: 'read: GET balance',
        route: 'GET /v1/balance/details',
        read: true,
        unit: 'request',
        method: 'GET',
        key: () => merchant.apiKey,
        next: () => ({ path: '/v1/balance/details' }),
      },
      {
        id: 'bill',
        label: 'bill (1 phrase)',
        route: 'POST /v1/customer/bill',
        read: false,
        unit: 'billed phrase',
        method: 'POST',
        key: () => merchant.apiKey,
        next: () => ({
          path: '/v1/customer/bill',
          body: json({ agreementPhrases: [pick(customers).agreementPhrase], amount: 1, currency: 'NGN', description: 'Bench bill' }),
        }),
        probeNext: () => ({
          path: '/v1/customer/bill',
          body: json({ agreementPhrases: [customers[0]!.agreementPhrase], amount: 1, currency: 'NGN', description: 'Bench bill' }),
        }),
      },
      {
        id: 'intent-response',
        label: 'intent-response',
        route: 'POST /v1/billing/intent-response',
        read: false,
        unit: 'answered intent',
        method: 'POST',
        key: () => bank.apiKey,
        next: () => {
          lastIntent = intents.shift() ?? lastIntent;
          return {
            path: '/v1/billing/intent-response',
            body: json({ ...lastIntent, entityId: merchant.id, customerDecision: 'approve_recurring', spendingLimits: LIMITS }),
          };
        },
        prepare: (seconds: number, lastRps: number) => topUpIntents(Math.ceil((lastRps || 50) * seconds * 1.6) + 40),
        exhausted: () => intents.length === 0,
      },
      {
        id: 'batch',
        label: `batch customers (${BATCH_RECORDS})`,
        route: 'POST /v1/bank/customers',
        read: false,
        unit: `batch of ${BATCH_RECORDS} records`,
        seconds: SECONDS * 2,
        method: 'POST',
        key: () => bank.apiKey,
        next: () => ({ path: '/v1/bank/customers', body: json({ customers: newRecords(BATCH_RECORDS) }) }),
      },
    ];
    const specs = all.filter((c) => !ONLY || ONLY.includes(c.id));

    const headersFor = (spec: ClassSpec) => ({
      authorization: `Bearer ${spec.key()}`,
      ...(spec.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    });
    const sequential = async (spec: ClassSpec, n: number) => {
      for (let i = 0; i < n; i++) {
        const r = (spec.probeNext ?? spec.next)();
        const res = await fetch(new URL(r.path, s.app.url), { method: spec.method, headers: headersFor(spec), body: r.body });
        await res.text();
        if (res.status >= 300) throw new Error(`${spec.route}: ${res.status} in warm-up/probe`);
      }
    };

    const classes: ClassResult[] = [];
    for (const spec of specs) {
      console.error(`bench endpoints: ${spec.label}`);
      await spec.prepare?.(SERIAL_SECONDS, 0);
      // Warm-up (module load, JIT, caches), then the probe: the last of 3 sequential requests is the recorded one.
      await sequential(spec, 5);
      const logBytesPerRequest = Math.round((await logBytes(() => sequential(spec, 4))) / 4);
      // The probe: 5 single requests recorded one by one; the one with the fewest DynamoDB
      // commands is the steady state (the others include an instance-cache refill).
      let probe = await ddb.record(() => sequential(spec, 1));
      for (let i = 0; i < 4; i++) {
        const p = await ddb.record(() => sequential(spec, 1));
        if (p.commands.length < probe.commands.length) probe = p;
      }
      const floor: FloorPlan = await buildFloor(probe.commands, tableName);
      let floorN = 0;
      const floorOp = () => floor.run(floorN++);
      for (let i = 0; i < 3; i++) await floorOp(); // floor warm-up

      const endpointRun = async (round: number, seconds: number, connections: number) => {
        await server.drain(() => ddb.inFlight > 0);
        server.reset();
        ddb.reset();
        sqs.reset();
        const r = await runEndpointLoad({
          url: s.app.url,
          method: spec.method,
          headers: headersFor(spec),
          connections,
          seconds,
          round,
          next: spec.next,
          exhausted: spec.exhausted,
        });
        // Requests cut off at the deadline still run to the end on the server: count them too.
        await server.drain(() => ddb.inFlight > 0);
        return { run: r, ddb: ddb.reset(), sqs: sqs.reset(), server: server.reset() };
      };
      const floorRun = async (round: number, seconds: number) => {
        ddb.reset();
        const r = await runClosedLoop({ concurrency: CONCURRENCY, seconds, round, op: floorOp, maxOps: 200_000 });
        return { run: r, ddb: ddb.reset() };
      };

      // Serial (concurrency 1): per-invocation duration.
      const serial = await endpointRun(0, SERIAL_SECONDS, 1);
      // Load warm-up at full concurrency (not recorded).
      await spec.prepare?.(1, 0);
      await endpointRun(0, 1, CONCURRENCY);
      await floorRun(0, 1);

      const endpointRuns: LoadRun[] = [];
      const floorRuns: LoadRun[] = [];
      const eCounts = emptyDdbCounts();
      const fCounts = emptyDdbCounts();
      const sqsTotals: SqsCounts = { requests: 0, byCommand: {}, messagesSent: 0 };
      const serverStatuses: Record<string, number> = {};
      let lastRps = 0;
      for (let r = 1; r <= ROUNDS; r++) {
        const seconds = spec.seconds ?? SECONDS;
        await spec.prepare?.(seconds, lastRps);
        const e = await endpointRun(r, seconds, CONCURRENCY);
        endpointRuns.push(e.run);
        addCounts(eCounts, e.ddb);
        for (const [k, v] of Object.entries(e.server)) serverStatuses[k] = (serverStatuses[k] ?? 0) + v;
        sqsTotals.messagesSent += e.sqs.messagesSent;
        sqsTotals.requests += e.sqs.requests;
        lastRps = e.run.ok / e.run.seconds;
        const f = await floorRun(r, seconds);
        floorRuns.push(f.run);
        addCounts(fCounts, f.ddb);
        console.error(
          `  round ${r}: endpoint ${round(lastRps, 1)}/s (${JSON.stringify(e.run.statuses)}), floor ${round(f.run.ok / f.run.seconds, 1)}/s`,
        );
      }
      const endpoint = mergeLatencies(endpointRuns);
      const fl = mergeLatencies(floorRuns);
      // DynamoDB per unit: every command of the runs (requests cut off at a deadline included:
      // the runs wait for their handlers) over the requests the handlers served.
      const units = eCounts.httpRequests;
      const serialMerged = mergeLatencies([serial.run]);
      classes.push({
        id: spec.id,
        label: spec.label,
        route: spec.route,
        read: spec.read,
        unit: spec.unit,
        floorStages: floor.stages,
        floorRequests: floor.requests,
        endpoint,
        floor: { rps: fl.rps, ok: fl.ok, seconds: fl.seconds, errors: fl.errors, latency: fl.latency },
        ratio: round(endpoint.rps / fl.rps, 3),
        ratioMedianOfRounds: round(median(endpointRuns.map((e, i) => e.ok / e.seconds / (floorRuns[i]!.ok / floorRuns[i]!.seconds))), 3),
        latencyRatioP50: round(endpoint.latency.p50 / fl.latency.p50, 2),
        serverStatuses,
        handledRequests: eCounts.httpRequests,
        rounds: endpointRuns.map((e, i) => {
          const er = e.ok / e.seconds;
          const fr = floorRuns[i]!.ok / floorRuns[i]!.seconds;
          return { round: i + 1, endpointRps: round(er, 1), floorRps: round(fr, 1), ratio: round(er / fr, 3) };
        }),
        serial: { rps: serialMerged.rps, latency: serialMerged.latency },
        dynamodb: perUnit(eCounts, units),
        floorDynamodb: perUnit(fCounts, fl.ok),
        sqsMessagesPerUnit: round(sqsTotals.messagesSent / Math.max(1, units), 2),
        logBytesPerRequest,
      });
    }

    // ---- the rest of a bill's life at concurrency 1, for the cost model: the bank approves it.
    const lifecycle: Record<string, unknown> = {};
    if (!ONLY || ONLY.includes('bill')) {
      const K = QUICK ? 10 : 30;
      const billIds: string[] = [];
      for (let i = 0; i < K; i++) {
        const res = await s.must<any[]>(201, 'POST', '/v1/customer/bill', merchant.apiKey, {
          agreementPhrases: [customers[i % customers.length]!.agreementPhrase],
          amount: 1,
          currency: 'NGN',
          description: 'Bench lifecycle',
        });
        billIds.push(res[0].billingRequestId);
      }
      const approve = (id: string) =>
        s.must(200, 'POST', '/v1/billing/bank-response', bank.apiKey, {
          billingRequestId: id,
          action: 'approve_recurring',
          bankTransactionId: `BTX-${randomToken(10)}`,
        });
      await approve(billIds.shift()!); // module load
      const logs = await logBytes(() => approve(billIds.shift()!));
      const lat: number[] = [];
      sqs.reset();
      const m = await ddb.measure(async () => {
        for (const id of billIds) {
          const t0 = performance.now();
          await approve(id);
          lat.push(performance.now() - t0);
        }
      });
      lifecycle.bankResponseApprove = {
        route: 'POST /v1/billing/bank-response (approve)',
        requests: billIds.length,
        latency: summarize(lat),
        dynamodb: perUnit(m.counts, billIds.length),
        sqsMessagesPerUnit: round(sqs.reset().messagesSent / billIds.length, 2),
        logBytesPerRequest: logs,
      };
      // One bill request with every customer's phrase: the per-request reads amortized.
      const phrases = customers.map((c) => c.agreementPhrase);
      const t0 = performance.now();
      const bulk = await ddb.measure(() =>
        s.must<any[]>(201, 'POST', '/v1/customer/bill', merchant.apiKey, {
          agreementPhrases: phrases,
          amount: 1,
          currency: 'NGN',
          description: 'Bench bulk',
        }),
      );
      const billed = bulk.value.filter((e) => e.statusCode === 201).length;
      lifecycle.bulkBill = {
        phrases: phrases.length,
        billed,
        ms: Math.round(performance.now() - t0),
        dynamodb: perUnit(bulk.counts, billed),
      };
    }

    return {
      config: {
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        secondsPerRun: SECONDS,
        serialSeconds: SERIAL_SECONDS,
        customers: CUSTOMERS,
        batchRecords: BATCH_RECORDS,
        quick: QUICK,
      },
      setup: { agreementsMs: setupMs, customers: CUSTOMERS, intentsCreatedForIntentResponse: intentsCreated },
      classes,
      lifecycle,
      loadAverage: { start: loadStart, end: loadAverage() },
    };
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMain(async () => {
    const r = await runEndpoints();
    const out = { phase: 'endpoints', recordedAt: new Date().toISOString(), machine: machine(), ...r };
    if (process.env.BENCH_OUT) writeJson(outPath('unused'), out);
    for (const c of r.classes) {
      console.log(
        `${c.label.padEnd(26)} ${String(c.endpoint.rps).padStart(7)}/s p50 ${c.endpoint.latency.p50} p99 ${c.endpoint.latency.p99} | floor ${c.floor.rps}/s p50 ${c.floor.latency.p50} p99 ${c.floor.latency.p99} | ratio ${c.ratio} | ddb ${c.dynamodb.requests}/${c.unit} cap ${c.dynamodb.capacity.total}`,
      );
    }
  });
}
