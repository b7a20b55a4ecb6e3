/**
 * Benchmark: one 500-record customer batch end to end on the local stack (DynamoDB Local +
 * fauxqs + the local HTTP runtime), timed, with the DynamoDB requests it made counted by an
 * SDK middleware on the shared document client. Also times a re-upload of the same 500
 * records (all duplicates) and checks the customers are discoverable right after.
 *
 *   npx tsx bench/customers.ts          → prints a summary, writes bench/results-customers.json
 *
 * BENCH_RECORDS (default 500) and BENCH_RUNS (default 5, fresh records per run) change the run.
 */
import { cpus } from 'node:os';
import { randomToken } from '../functions/domain/ids';
import { db } from '../functions/platform/clients';
import { DdbCounter, type DdbCounts } from './lib/counters';
import { loadAverage, outPath, runMain, writeJson } from './lib/results';
import { startBenchStack, type BenchStack } from './lib/stack';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const OUT = outPath('results-customers.json');

/** Counts every DynamoDB command sent through the document client, by name, plus attempts (bench/lib/counters.ts). */
const counter = new DdbCounter();
const itemsWritten = (c: DdbCounts) => c.itemsWritten + Object.values(c.transactItems).reduce((a, b) => a + b, 0);

let seq = 0;
function records(n: number) {
  const run = randomToken(6);
  return Array.from({ length: n }, () => {
    const i = ++seq;
    return {
      clientRef: `CR-${run}-${i}`,
      firstname: 'Ada',
      middlename: 'Ngozi',
      lastname: 'Obi',
      accountName: 'Ada Ngozi Obi',
      email: `ada.${run}.${i}@example.com`,
      country: 'NG',
      accountNumber: String(1_000_000_000 + i),
      reference: `REF-${run}-${i}`,
      address: `${i} Marina Road, Lagos`,
      gender: 'female',
      phone: `+234 803 ${String(1_000_000 + i).slice(-7)}`,
    };
  });
}

async function measure(label: string, fn: () => Promise<{ status: number; body: any }>) {
  counter.reset();
  const started = performance.now();
  const r = await fn();
  const ms = Math.round(performance.now() - started);
  const c = counter.reset();
  return {
    label,
    status: r.status,
    ms,
    dynamodb: { total: c.requests, byCommand: { ...c.byCommand }, attempts: c.attempts, itemsWritten: itemsWritten(c) },
    body: r.body,
  };
}

async function main() {
  let stack: BenchStack | undefined;
  try {
    stack = await startBenchStack({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    counter.install(db());
    const a = stack;
    const operatorKey = a.operatorKey;
    const bank = (
      await a.call('POST', '/v1/operator/participants', operatorKey, { type: 'bank', name: 'Bench Bank', email: 'bank@bench.test' })
    ).body.data;
    const merchant = (
      await a.call('POST', '/v1/operator/participants', operatorKey, { type: 'merchant', name: 'Bench Shop', email: 'shop@bench.test' })
    ).body.data;

    // Warm-up: loads the handler modules (cold start is not what we measure).
    const warmRecords = records(1);
    const warm = await measure('warm-up (1 record)', () => a.call('POST', '/v1/bank/customers', bank.apiKey, { customers: warmRecords }));
    await a.call('GET', `/v1/customer/banks?email=${encodeURIComponent(warmRecords[0]!.email)}`, merchant.apiKey);

    const runs = [];
    let last: ReturnType<typeof records> = [];
    for (let i = 0; i < RUNS; i++) {
      last = records(RECORDS);
      const body = { customers: last };
      const m = await measure(`${RECORDS} new records, run ${i + 1}`, () => a.call('POST', '/v1/bank/customers', bank.apiKey, body));
      if (m.status !== 201 || m.body.data.summary.successful !== RECORDS)
        throw new Error(`batch failed: ${m.status} ${JSON.stringify(m.body.data?.summary ?? m.body)}`);
      runs.push(m);
    }
    // Discoverable right after the answer (no asynchronous indexing).
    const lookupStarted = performance.now();
    const found = await a.call('GET', `/v1/customer/banks?email=${encodeURIComponent(last[RECORDS - 1]!.email)}`, merchant.apiKey);
    const discoverableAfterMs = Math.round(performance.now() - lookupStarted);
    if (found.status !== 200) throw new Error(`last customer not discoverable: ${found.status}`);

    const dup = await measure(`${RECORDS} duplicates (same records again)`, () =>
      a.call('POST', '/v1/bank/customers', bank.apiKey, { customers: last }),
    );
    if (dup.body.data.summary.duplicates !== RECORDS) throw new Error('re-upload did not report every record as a duplicate');

    const strip = ({ body: _b, ...m }: Awaited<ReturnType<typeof measure>>) => m;
    const times = runs.map((r) => r.ms).sort((x, y) => x - y);
    const result = {
      benchmark: 'POST /v1/bank/customers, one batch end to end (HTTP → handler → DynamoDB Local)',
      recordedAt: new Date().toISOString(),
      node: process.version,
      records: RECORDS,
      runs: runs.map(strip),
      medianMs: times[Math.floor(times.length / 2)],
      minMs: times[0],
      loadAverage: loadAverage(),
      cpus: cpus().length,
      recordsPerSecond: Math.round((RECORDS / times[Math.floor(times.length / 2)]!) * 1000),
      duplicateReupload: strip(dup),
      warmUp: strip(warm),
      discoverableAfterMs,
      notes: [
        'Counts are DynamoDB commands sent by the service (document client middleware), including the API-key/rate-limit UpdateItem and the batch record write.',
        'Each customer = 3 items (customer, clientRef guard, reference guard) in TransactWriteItems of 33 customers (99 items), 8 transactions in flight.',
        'The batch record (summary, ids, failure entries) is one BatchWriteItem.',
      ],
    };
    writeJson(OUT, result);
    console.log(`\n${result.benchmark}`);
    for (const r of [warm, ...runs, dup]) {
      console.log(
        `  ${r.label.padEnd(40)} ${String(r.ms).padStart(6)} ms   DynamoDB requests ${r.dynamodb.total} ${JSON.stringify(r.dynamodb.byCommand)}  items written ${r.dynamodb.itemsWritten}`,
      );
    }
    console.log(`  load average ${result.loadAverage.join(' ')} on ${result.cpus} CPUs`);
    console.log(
      `  median ${result.medianMs} ms, best ${result.minMs} ms (${result.recordsPerSecond} records/s); email lookup of the last record answered 200 in ${discoverableAfterMs} ms`,
    );
    console.log(`  → ${OUT}`);
  } finally {
    await stack?.stop();
  }
}

runMain(main);
