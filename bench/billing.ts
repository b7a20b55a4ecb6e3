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
import { cpus } from 'node:os';
import { db } from '../functions/platform/clients';
import { DdbCounter, type DdbCounts } from './lib/counters';
import { loadAverage, outPath, runMain, writeJson } from './lib/results';
import { startBenchStack, type BenchStack } from './lib/stack';
import { mapLimit, pct, round } from './lib/stats';

const CUSTOMERS = 100;
const BULK_RUNS = Number(process.env.BENCH_BULK_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const OUT = outPath('results-billing.json');

// ---------------------------------------------------------------------------------------
// DynamoDB request counting (bench/lib/counters.ts: purpose `app` is the billing path here)

const counter = new DdbCounter();

function perPhrase(c: DdbCounts, phrases: number) {
  return {
    requestsTotal: c.requests,
    requestsPerBilledPhrase: round(c.requests / phrases),
    billingPathRequestsPerBilledPhrase: round(c.byPurpose.app / phrases),
    byPurpose: { auth: c.byPurpose.auth, idempotency: c.byPurpose.idempotency, billing: c.byPurpose.app },
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
  let stack: BenchStack | undefined;
  try {
    // No SQS pollers: webhook deliveries stay queued, so only the request path is counted.
    stack = await startBenchStack({ pollers: 0, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    const a = stack;
    const run = a.run;

    // Parties: a bank with a webhook endpoint, a trusted merchant under a provider.
    const bank = await a.participant('bank');
    const provider = await a.participant('provider');
    const merchant = await a.participant('merchant', { providerId: provider.id });
    await a.must(200, 'PATCH', '/v1/provider/merchant/trust', provider.apiKey, {
      entityId: merchant.id,
      trusted: true,
      trustLevel: 'enhanced',
    });
    await a.must(201, 'POST', '/v1/webhooks/endpoints', bank.apiKey, { url: 'http://127.0.0.1:9/bank-hook' });

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
    const batch = (await a.must(201, 'POST', '/v1/bank/customers', bank.apiKey, { customers: records })).data;
    const customerIds: string[] = batch.data.customerIds;
    const setupStarted = performance.now();
    const phrases = await mapLimit(customerIds, 8, async (customerId, i) => {
      const found = (await a.must(200, 'GET', `/v1/customer/banks?email=${encodeURIComponent(records[i]!.email)}`, merchant.apiKey)).data;
      const lookupPhrase = found.banks[0].lookupPhrase as string;
      const intent = await a.must(200, 'POST', '/v1/billing/intent', merchant.apiKey, {
        lookupPhrases: [lookupPhrase],
        currency: 'NGN',
        description: 'Bench',
      });
      const d = (
        await a.must(200, 'POST', '/v1/billing/intent-response', bank.apiKey, {
          customerId,
          entityId: merchant.id,
          lookupPhrase,
          intentId: intent[0].intentId,
          customerDecision: 'approve_recurring',
          spendingLimits: { single: 1000, daily: 1_000_000, weekly: 5_000_000, monthly: 20_000_000 },
        })
      ).data;
      return d.agreementPhrase as string;
    });
    const setupMs = Math.round(performance.now() - setupStarted);

    counter.install(db());
    const bill = (agreementPhrases: string[]) =>
      a.call('POST', '/v1/customer/bill', merchant.apiKey, { agreementPhrases, amount: 1, currency: 'NGN', description: 'Bench bill' });

    // Warm-up: loads the handler module and the process caches, not measured.
    counter.reset();
    const warm = await bill([phrases[0]!]);
    if (warm.status !== 201) throw new Error(`warm-up: ${warm.status} ${JSON.stringify(warm.body)}`);
    const warmUp = perPhrase(counter.reset(), 1);

    // 1. One request with 100 phrases.
    const bulk = [];
    for (let r = 0; r < BULK_RUNS; r++) {
      counter.reset();
      const started = performance.now();
      const res = await bill(phrases);
      const ms = Math.round(performance.now() - started);
      if (res.status !== 201 || res.body.length !== CUSTOMERS || res.body.some((e: any) => e.statusCode !== 201)) {
        throw new Error(`bulk bill failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      }
      bulk.push({ run: r + 1, ms, phrasesBilled: CUSTOMERS, ...perPhrase(counter.reset(), CUSTOMERS) });
    }

    // 2. Sustained single-phrase bills, concurrency 16.
    counter.reset();
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
      latencyMs: {
        p50: round(pct(sorted, 50), 1),
        p90: round(pct(sorted, 90), 1),
        p99: round(pct(sorted, 99), 1),
        max: round(sorted[sorted.length - 1]!, 1),
      },
      ...perPhrase(counter.reset(), billed),
    };

    const bulkTimes = bulk.map((b) => b.ms).sort((x, y) => x - y);
    const result = {
      benchmark: 'POST /v1/customer/bill on the local stack (HTTP → handler → DynamoDB Local; SQS pollers off)',
      recordedAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverage: loadAverage(),
      setup: { customers: CUSTOMERS, agreementSetupMs: setupMs },
      target: 'at most 3 DynamoDB requests per billed phrase',
      warmUp,
      bulk100: { runs: bulk, medianMs: bulkTimes[Math.floor(bulkTimes.length / 2)], minMs: bulkTimes[0] },
      sustainedSinglePhrase: sustained,
      notes: [
        'requestsPerBilledPhrase counts every DynamoDB command of the measured HTTP requests, including the API-key/rate-limit UpdateItem (one per HTTP request).',
        'billingPathRequestsPerBilledPhrase excludes that auth request (GetItem, or the UpdateItem flushing the rate count) (and idempotency records; none here: no Idempotency-Key sent).',
        "Per bill request: merchant GetItem (cached 30 s per process), decisions BatchGetItem (one per 100 phrases), customers BatchGetItem (cached: bank and clientRef never change); per phrase: one TransactWriteItems (decision lastUsed, month and week counters, billing request, event, delivery) and the outbox's Query of the bank's webhook endpoints.",
        'Consumed capacity as reported by DynamoDB Local with ReturnConsumedCapacity TOTAL (on AWS a transactional write costs 2 WCU per item).',
      ],
    };
    writeJson(OUT, result);

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
    await stack?.stop();
  }
}

runMain(main);
