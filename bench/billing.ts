/**
 * Benchmark (not part of npm test): POST /v1/customer/bill on the local stack (DynamoDB
 * Local + fauxqs + the local HTTP runtime).
 *
 *   npx tsx bench/billing.ts      → prints figures, writes bench/results-billing.json
 *
 * 1. one bill request with 100 agreementPhrases (100 customers of one bank, approve_recurring
 *    decisions with limits), BENCH_BULK_RUNS times;
 * 2. sustained single-phrase bills at concurrency 16 for BENCH_SECONDS (10) seconds, each
 *    worker billing random customers among the 100.
 *
 * Every DynamoDB command the service sends is counted by an SDK middleware on the shared
 * document client (`db()`), which also asks for `ReturnConsumedCapacity: 'TOTAL'` and sums
 * what comes back. The SQS pollers are off (LOCAL_POLLER_CONCURRENCY=0) so the webhook
 * worker's reads do not mix into the figures: the deliveries of `billing.request` are
 * written and enqueued by the bill request (the bank has one endpoint), not delivered.
 *
 * Figures per billed phrase: all requests (incl. the API-key/rate-limit UpdateItem of each
 * HTTP request), and the billing path alone (decision + customer reads, the transaction,
 * the outbox's endpoint lookup, merchant/participant reads).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomToken } from '../functions/domain/ids';
import { db } from '../functions/store/clients';
import { startApp, type LocalApp } from '../local/app';
import { startDynamo, startSqs, type RunningService } from '../local/services';

const CUSTOMERS = 100;
const BULK_RUNS = Number(process.env.BENCH_BULK_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const OUT = resolve(dirname(fileURLToPath(import.meta.url)), 'results-billing.json');

// ---------------------------------------------------------------------------------------
// DynamoDB request counting

type Counts = {
  total: number;
  byCommand: Record<string, number>;
  /** auth = API key / rate-limit item; idempotency = IDEM# records; billing = the rest. */
  byPurpose: Record<'auth' | 'idempotency' | 'billing', number>;
  capacity: { total: number; byCommand: Record<string, number>; reported: number };
  attempts: number;
  failed: Record<string, number>;
};
let counts: Counts = fresh();
function fresh(): Counts {
  return { total: 0, byCommand: {}, byPurpose: { auth: 0, idempotency: 0, billing: 0 }, capacity: { total: 0, byCommand: {}, reported: 0 }, attempts: 0, failed: {} };
}

const CAPACITY_COMMANDS = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem', 'TransactWriteItems', 'TransactGetItems']);

function purposeOf(input: Record<string, any>): 'auth' | 'idempotency' | 'billing' {
  const pk: unknown = input.Key?.pk ?? input.Item?.pk;
  if (typeof pk === 'string' && pk.startsWith('APIKEY#')) return 'auth';
  if (typeof pk === 'string' && pk.startsWith('IDEM#')) return 'idempotency';
  return 'billing';
}

function sumCapacity(c: unknown): number {
  if (!c) return 0;
  if (Array.isArray(c)) return c.reduce((s, x) => s + sumCapacity(x), 0);
  return Number((c as { CapacityUnits?: number }).CapacityUnits ?? 0);
}

function instrument() {
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Record<string, any>;
      if (CAPACITY_COMMANDS.has(name)) input.ReturnConsumedCapacity = 'TOTAL';
      counts.total++;
      counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
      counts.byPurpose[purposeOf(input)]++;
      try {
        const out = await next(args);
        const o = out.output as { $metadata?: { attempts?: number }; ConsumedCapacity?: unknown };
        counts.attempts += o.$metadata?.attempts ?? 1;
        const cu = sumCapacity(o.ConsumedCapacity);
        if (o.ConsumedCapacity) counts.capacity.reported++;
        counts.capacity.total += cu;
        counts.capacity.byCommand[name] = (counts.capacity.byCommand[name] ?? 0) + cu;
        return out;
      } catch (e) {
        counts.attempts += (e as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
        const key = `${name}:${(e as Error).name}`;
        counts.failed[key] = (counts.failed[key] ?? 0) + 1;
        throw e;
      }
    },
    { step: 'initialize', name: 'benchBillingCounter' },
  );
}

// ---------------------------------------------------------------------------------------
// API helpers

async function call(app: LocalApp, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(path, app.url), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
}

function must(r: { status: number; body: any }, status: number, what: string) {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function perPhrase(c: Counts, phrases: number) {
  return {
    requestsTotal: c.total,
    requestsPerBilledPhrase: round(c.total / phrases),
    billingPathRequestsPerBilledPhrase: round(c.byPurpose.billing / phrases),
    byPurpose: { ...c.byPurpose },
    byCommand: { ...c.byCommand },
    consumedCapacity: {
      total: round(c.capacity.total),
      perBilledPhrase: round(c.capacity.total / phrases),
      byCommand: Object.fromEntries(Object.entries(c.capacity.byCommand).map(([k, v]) => [k, round(v)])),
      responsesWithCapacity: c.capacity.reported,
    },
    sdkAttempts: c.attempts,
    failedCommands: { ...c.failed },
  };
}

// ---------------------------------------------------------------------------------------

async function main() {
  const services: RunningService[] = [];
  let app: LocalApp | undefined;
  try {
    const dynamo = await startDynamo();
    services.push(dynamo);
    const sqs = await startSqs();
    services.push(sqs);
    // No SQS pollers: webhook deliveries stay queued, so only the request path is counted.
    process.env.LOCAL_POLLER_CONCURRENCY = '0';
    const operatorKey = `op_${randomToken(32)}`;
    app = await startApp({
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      tableName: `bench-${randomToken(6).toLowerCase()}`,
      queuePrefix: `bench-${randomToken(6).toLowerCase()}-`,
      port: 0,
      tickMs: 0,
      env: {
        STAGE: 'sandbox',
        OPERATOR_API_KEY: operatorKey,
        APP_SECRETS: JSON.stringify({ masterKey: randomToken(64) }),
        LOG_LEVEL: 'SILENT',
        RATE_LIMIT_PER_MINUTE: '1000000',
      },
    });
    const a = app;
    const run = randomToken(6).toLowerCase();

    // Parties: a bank with a webhook endpoint, a trusted merchant under a provider.
    const participant = async (body: Record<string, unknown>) => must(await call(a, 'POST', '/v1/operator/participants', operatorKey, body), 201, 'participant').data;
    const bank = await participant({ type: 'bank', name: 'Bench Bank', email: `bank-${run}@bench.test` });
    const provider = await participant({ type: 'provider', name: 'Bench Provider', email: `prv-${run}@bench.test` });
    const merchant = await participant({ type: 'merchant', name: 'Bench Shop', email: `shop-${run}@bench.test`, providerId: provider.id });
    must(await call(a, 'PATCH', '/v1/provider/merchant/trust', provider.apiKey, { entityId: merchant.id, trusted: true, trustLevel: 'enhanced' }), 200, 'trust');
    must(await call(a, 'POST', '/v1/webhooks/endpoints', bank.apiKey, { url: 'http://127.0.0.1:9/bank-hook' }), 201, 'bank endpoint');

    // 100 customers and their agreements (real flow: batch, email lookup, intent, intent-response).
    const records = Array.from({ length: CUSTOMERS }, (_, i) => ({
      clientRef: `CR-${run}-${i}`,
      firstname: 'Ada',
      lastname: `Obi${i}`,
      email: `ada${i}-${run}@bench.test`,
      country: 'NG',
      accountNumber: String(1_000_000_000 + i),
      reference: `REF-${run}-${i}`,
    }));
    const batch = must(await call(a, 'POST', '/v1/bank/customers', bank.apiKey, { customers: records }), 201, 'customers').data;
    const customerIds: string[] = batch.data.customerIds;
    const setupStarted = performance.now();
    const phrases = await mapLimit(customerIds, 8, async (customerId, i) => {
      const found = must(await call(a, 'GET', `/v1/customer/banks?email=${encodeURIComponent(records[i]!.email)}`, merchant.apiKey), 200, 'lookup').data;
      const lookupPhrase = found.banks[0].lookupPhrase as string;
      const intent = must(await call(a, 'POST', '/v1/billing/intent', merchant.apiKey, { lookupPhrases: [lookupPhrase], currency: 'NGN', description: 'Bench' }), 200, 'intent');
      const d = must(
        await call(a, 'POST', '/v1/billing/intent-response', bank.apiKey, {
          customerId,
          entityId: merchant.id,
          lookupPhrase,
          intentId: intent[0].intentId,
          customerDecision: 'approve_recurring',
          spendingLimits: { single: 1000, daily: 1_000_000, weekly: 5_000_000, monthly: 20_000_000 },
        }),
        200,
        'intent-response',
      ).data;
      return d.agreementPhrase as string;
    });
    const setupMs = Math.round(performance.now() - setupStarted);

    instrument();
    const bill = (agreementPhrases: string[]) =>
      call(a, 'POST', '/v1/customer/bill', merchant.apiKey, { agreementPhrases, amount: 1, currency: 'NGN', description: 'Bench bill' });

    // Warm-up: loads the handler module and the process caches, not measured.
    counts = fresh();
    must(await bill([phrases[0]!]), 201, 'warm-up');
    const warmUp = perPhrase(counts, 1);

    // 1. One request with 100 phrases.
    const bulk = [];
    for (let r = 0; r < BULK_RUNS; r++) {
      counts = fresh();
      const started = performance.now();
      const res = await bill(phrases);
      const ms = Math.round(performance.now() - started);
      if (res.status !== 201 || res.body.length !== CUSTOMERS || res.body.some((e: any) => e.statusCode !== 201)) {
        throw new Error(`bulk bill failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      }
      bulk.push({ run: r + 1, ms, phrasesBilled: CUSTOMERS, ...perPhrase(counts, CUSTOMERS) });
    }

    // 2. Sustained single-phrase bills, concurrency 16.
    counts = fresh();
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const deadline = performance.now() + SECONDS * 1000;
    const sustainedStarted = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < deadline) {
          const phrase = phrases[Math.floor(Math.random() * phrases.length)]!;
          const t0 = performance.now();
          const res = await bill([phrase]);
          latencies.push(performance.now() - t0);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        }
      }),
    );
    const sustainedMs = performance.now() - sustainedStarted;
    const sorted = [...latencies].sort((x, y) => x - y);
    const billed = statuses['201'] ?? 0;
    const sustained = {
      seconds: round(sustainedMs / 1000, 1),
      concurrency: CONCURRENCY,
      requests: latencies.length,
      statuses,
      billsPerSecond: round(billed / (sustainedMs / 1000), 1),
      latencyMs: { p50: round(pct(sorted, 50), 1), p90: round(pct(sorted, 90), 1), p99: round(pct(sorted, 99), 1), max: round(sorted[sorted.length - 1]!, 1) },
      ...perPhrase(counts, billed),
    };

    const bulkTimes = bulk.map((b) => b.ms).sort((x, y) => x - y);
    const result = {
      benchmark: 'POST /v1/customer/bill on the local stack (HTTP → handler → DynamoDB Local; SQS pollers off)',
      recordedAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadavg().map((l) => round(l)),
      setup: { customers: CUSTOMERS, agreementSetupMs: setupMs },
      target: 'at most 3 DynamoDB requests per billed phrase',
      warmUp,
      bulk100: { runs: bulk, medianMs: bulkTimes[Math.floor(bulkTimes.length / 2)], minMs: bulkTimes[0] },
      sustainedSinglePhrase: sustained,
      notes: [
        'requestsPerBilledPhrase counts every DynamoDB command of the measured HTTP requests, including the API-key/rate-limit UpdateItem (one per HTTP request).',
        'billingPathRequestsPerBilledPhrase excludes that auth UpdateItem (and idempotency records; none here: no Idempotency-Key sent).',
        'Per bill request: merchant GetItem (cached 30 s per process), decisions BatchGetItem (one per 100 phrases), customers BatchGetItem (cached: bank and clientRef never change); per phrase: one TransactWriteItems (decision lastUsed, month and week counters, billing request, event, delivery) and the outbox\'s Query of the bank\'s webhook endpoints.',
        'Consumed capacity as reported by DynamoDB Local with ReturnConsumedCapacity TOTAL (on AWS a transactional write costs 2 WCU per item).',
      ],
    };
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);

    console.log(`\n${result.benchmark}`);
    console.log(`  setup: ${CUSTOMERS} agreements in ${setupMs} ms`);
    for (const b of bulk) {
      console.log(
        `  bulk 100 phrases, run ${b.run}: ${b.ms} ms; DynamoDB ${b.requestsTotal} requests = ${b.requestsPerBilledPhrase}/phrase (billing path ${b.billingPathRequestsPerBilledPhrase}/phrase) ${JSON.stringify(b.byCommand)}; capacity ${b.consumedCapacity.perBilledPhrase}/phrase`,
      );
    }
    console.log(
      `  sustained single-phrase, concurrency ${CONCURRENCY}, ${sustained.seconds} s: ${sustained.requests} requests ${JSON.stringify(statuses)}, ${sustained.billsPerSecond} bills/s, p50 ${sustained.latencyMs.p50} ms, p99 ${sustained.latencyMs.p99} ms`,
    );
    console.log(
      `    DynamoDB ${sustained.requestsPerBilledPhrase}/billed phrase (billing path ${sustained.billingPathRequestsPerBilledPhrase}) ${JSON.stringify(sustained.byCommand)}; capacity ${sustained.consumedCapacity.perBilledPhrase}/phrase; failed ${JSON.stringify(sustained.failedCommands)}`,
    );
    console.log(`  load average ${result.loadAverage.join(' ')} on ${result.cpus} CPUs`);
    console.log(`  → ${OUT}`);
  } finally {
    await app?.stop().catch(() => undefined);
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
