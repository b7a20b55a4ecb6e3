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
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomToken } from '../functions/domain/ids';
import { db } from '../functions/store/clients';
import { startApp, type LocalApp } from '../local/app';
import { startDynamo, startSqs, type RunningService } from '../local/services';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const OUT = resolve(dirname(fileURLToPath(import.meta.url)), 'results-customers.json');

type Counts = { requests: Record<string, number>; attempts: number; itemsWritten: number };
let counts: Counts = fresh();
function fresh(): Counts {
  return { requests: {}, attempts: 0, itemsWritten: 0 };
}

/** Counts every DynamoDB command sent through the document client, by name, plus attempts. */
function instrument() {
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.requests[name] = (counts.requests[name] ?? 0) + 1;
      const input = args.input as Record<string, any>;
      if (name === 'TransactWriteItems') counts.itemsWritten += input.TransactItems?.length ?? 0;
      if (name === 'BatchWriteItem') for (const reqs of Object.values(input.RequestItems ?? {})) counts.itemsWritten += (reqs as unknown[]).length;
      if (name === 'PutItem' || name === 'UpdateItem') counts.itemsWritten += 1;
      try {
        const out = await next(args);
        counts.attempts += (out.output as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
        return out;
      } catch (e) {
        counts.attempts += (e as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
        throw e;
      }
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
}

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

async function call(app: LocalApp, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(new URL(path, app.url), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function measure(label: string, fn: () => Promise<{ status: number; body: any }>) {
  counts = fresh();
  const started = performance.now();
  const r = await fn();
  const ms = Math.round(performance.now() - started);
  const total = Object.values(counts.requests).reduce((a, b) => a + b, 0);
  return { label, status: r.status, ms, dynamodb: { total, byCommand: { ...counts.requests }, attempts: counts.attempts, itemsWritten: counts.itemsWritten }, body: r.body };
}

async function main() {
  const services: RunningService[] = [];
  let app: LocalApp | undefined;
  try {
    const dynamo = await startDynamo();
    services.push(dynamo);
    const sqs = await startSqs();
    services.push(sqs);
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
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    instrument();
    const a = app;
    const bank = (await call(a, 'POST', '/v1/operator/participants', operatorKey, { type: 'bank', name: 'Bench Bank', email: 'bank@bench.test' })).body.data;
    const merchant = (await call(a, 'POST', '/v1/operator/participants', operatorKey, { type: 'merchant', name: 'Bench Shop', email: 'shop@bench.test' })).body.data;

    // Warm-up: loads the handler modules (cold start is not what we measure).
    const warmRecords = records(1);
    const warm = await measure('warm-up (1 record)', () => call(a, 'POST', '/v1/bank/customers', bank.apiKey, { customers: warmRecords }));
    await call(a, 'GET', `/v1/customer/banks?email=${encodeURIComponent(warmRecords[0]!.email)}`, merchant.apiKey);

    const runs = [];
    let last: ReturnType<typeof records> = [];
    for (let i = 0; i < RUNS; i++) {
      last = records(RECORDS);
      const body = { customers: last };
      const m = await measure(`${RECORDS} new records, run ${i + 1}`, () => call(a, 'POST', '/v1/bank/customers', bank.apiKey, body));
      if (m.status !== 201 || m.body.data.summary.successful !== RECORDS) throw new Error(`batch failed: ${m.status} ${JSON.stringify(m.body.data?.summary ?? m.body)}`);
      runs.push(m);
    }
    // Discoverable right after the answer (no asynchronous indexing).
    const lookupStarted = performance.now();
    const found = await call(a, 'GET', `/v1/customer/banks?email=${encodeURIComponent(last[RECORDS - 1]!.email)}`, merchant.apiKey);
    const discoverableAfterMs = Math.round(performance.now() - lookupStarted);
    if (found.status !== 200) throw new Error(`last customer not discoverable: ${found.status}`);

    const dup = await measure(`${RECORDS} duplicates (same records again)`, () =>
      call(a, 'POST', '/v1/bank/customers', bank.apiKey, { customers: last }),
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
      loadAverage: (await import('node:os')).loadavg().map((l) => Math.round(l * 100) / 100),
      cpus: (await import('node:os')).cpus().length,
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
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\n${result.benchmark}`);
    for (const r of [warm, ...runs, dup]) {
      console.log(`  ${r.label.padEnd(40)} ${String(r.ms).padStart(6)} ms   DynamoDB requests ${r.dynamodb.total} ${JSON.stringify(r.dynamodb.byCommand)}  items written ${r.dynamodb.itemsWritten}`);
    }
    console.log(`  load average ${result.loadAverage.join(' ')} on ${result.cpus} CPUs`);
    console.log(`  median ${result.medianMs} ms, best ${result.minMs} ms (${result.recordsPerSecond} records/s); email lookup of the last record answered 200 in ${discoverableAfterMs} ms`);
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
