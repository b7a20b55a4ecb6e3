/**
 * Benchmark (not part of npm test): N recurring schedules due at the same instant, processed
 * through the real time path on the local stack (DynamoDB Local + fauxqs): the scheduler
 * tick (two ticks at once, to prove the claims) -> jobs queue -> SQS poller -> jobs worker
 * -> recurring.run -> createBilling (claim + billing + reservation + billing.request in one
 * transaction).
 *
 *   npx tsx bench/recurring.ts     → prints figures, writes bench/results-recurring.json
 *
 * BENCH_SCHEDULES (default 10000), BENCH_POLLERS (jobs batches in flight, default 8),
 * BENCH_ANSWERS (bank answers timed afterwards through POST /v1/billing/bank-response,
 * default 1000; 0 = none), BENCH_OUT (result file).
 *
 * Seeding goes through the store directly (customers, approve_recurring decisions with
 * limits, schedules: BatchWriteItem) to save time; the runs go through the real path. The
 * bank has no webhook endpoint, so the outbox looks its endpoints up (one Query per run)
 * but no delivery traffic mixes into the figures. Every DynamoDB command is counted by an
 * SDK middleware on the shared document client (`db()`), every SQS command on `queue()`.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { cpus, loadavg } from 'node:os';
import { db, queue } from '../functions/platform/clients';
import type { ScheduleItem } from '../functions/recurring/views';
import { table } from '../functions/platform/table';
import type { BillItem } from '../functions/bills/types';
import { outPath, writeJson } from './lib/results';
import { seedSchedules } from './lib/seed-recurring';
import { startBenchStack, type BenchStack } from './lib/stack';
import { mapLimit } from './lib/stats';

const N = Number(process.env.BENCH_SCHEDULES ?? 10_000);
const POLLERS = Number(process.env.BENCH_POLLERS ?? 8);
const ANSWERS = Math.min(N, Number(process.env.BENCH_ANSWERS ?? 1000));
const DUE_AT = '2027-06-01T09:00:00.000Z';
const OUT = outPath('results-recurring.json');

// ---------------------------------------------------------------------------------------
// Request counting

type Counts = {
  dynamodb: number;
  byCommand: Record<string, number>;
  sqs: number;
  sqsByCommand: Record<string, number>;
  failed: Record<string, number>;
};
let counts: Counts = fresh();
function fresh(): Counts {
  return { dynamodb: 0, byCommand: {}, sqs: 0, sqsByCommand: {}, failed: {} };
}

function instrument() {
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.dynamodb++;
      counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
      try {
        return await next(args);
      } catch (e) {
        const code = (e as { name?: string }).name ?? 'Error';
        counts.failed[`${name}:${code}`] = (counts.failed[`${name}:${code}`] ?? 0) + 1;
        throw e;
      }
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  queue().middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.sqs++;
      counts.sqsByCommand[name] = (counts.sqsByCommand[name] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchSqsCounter' },
  );
}

// ---------------------------------------------------------------------------------------

const parallel = <T>(items: T[], limit: number, fn: (t: T) => Promise<void>) => mapLimit(items, limit, fn);

async function scanPrefix<T>(prefix: string, projection: string[]): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  const names = Object.fromEntries(projection.map((p, i) => [`#p${i}`, p]));
  do {
    const r = await db().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': prefix },
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
        ExclusiveStartKey: start,
      }),
    );
    out.push(...((r.Items ?? []) as T[]));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

async function main() {
  let stack: BenchStack | undefined;
  try {
    stack = await startBenchStack({ pollers: POLLERS, env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
    const operatorKey = stack.operatorKey;
    const api = stack;
    const a = stack.app;
    const call = (_: unknown, method: string, path: string, key: string, body?: unknown) => api.call(method, path, key, body);

    // Participants through the API: a bank, a provider allowed premium, its premium merchant.
    const mk = async (body: Record<string, unknown>) => (await call(a, 'POST', '/v1/operator/participants', operatorKey, body)).body.data;
    const bank = await mk({ type: 'bank', name: 'Bench Bank', email: 'bank@bench.test' });
    const provider = await mk({ type: 'provider', name: 'Bench Provider', email: 'prov@bench.test' });
    await call(a, 'PATCH', `/v1/operator/providers/${provider.id}`, operatorKey, { maxTrustLevel: 'premium' });
    const merchant = await mk({ type: 'merchant', name: 'Bench Gym', email: 'gym@bench.test', providerId: provider.id });
    const trust = await call(a, 'PATCH', '/v1/provider/merchant/trust', provider.apiKey, {
      entityId: merchant.id,
      trusted: true,
      trustLevel: 'premium',
    });
    if (trust.status !== 200) throw new Error(`trust: ${JSON.stringify(trust.body)}`);

    // Seed: N customers, their approve_recurring decisions (with limits), N schedules due at DUE_AT.
    const seedStarted = performance.now();
    const schedules = await seedSchedules({
      n: N,
      bankId: bank.id,
      merchantId: merchant.id,
      providerId: provider.id,
      frequency: 'monthly',
      startDate: DUE_AT,
      maxBillings: 12,
    });
    const seedMs = Math.round(performance.now() - seedStarted);
    console.log(`seeded ${N} customers, decisions and schedules in ${(seedMs / 1000).toFixed(1)} s`);

    // Runs: two ticks at once at DUE_AT, then the workers until the queues are empty.
    instrument();
    counts = fresh();
    const started = performance.now();
    const [t1, t2] = await Promise.all([a.tick(new Date(DUE_AT)), a.tick(new Date(DUE_AT))]);
    const tickMs = Math.round(performance.now() - started);
    console.log(`ticks: claimed ${t1.claimed} + ${t2.claimed} of ${t1.found}/${t2.found} found in ${tickMs} ms`);
    const afterTick = { ...counts, byCommand: { ...counts.byCommand } };
    await a.settle(60 * 60 * 1000);
    const runMs = Math.round(performance.now() - started);
    const runCounts = counts;
    counts = fresh();

    // Verify: exactly one billing per schedule, every schedule processing with run 1.
    counts = fresh();
    const bills = await scanPrefix<Pick<BillItem, 'scheduleId' | 'runSeq' | 'billingRequestId' | 'status' | 'type'>>('BILL#', [
      'scheduleId',
      'runSeq',
      'billingRequestId',
      'status',
      'type',
    ]);
    const perSchedule = new Map<string, number>();
    for (const b of bills) if (b.scheduleId) perSchedule.set(b.scheduleId, (perSchedule.get(b.scheduleId) ?? 0) + 1);
    const doubles = [...perSchedule.values()].filter((n) => n > 1).length;
    const missing = schedules.filter((s) => !perSchedule.has(s.scheduleId)).length;
    const states = await scanPrefix<Pick<ScheduleItem, 'status' | 'seq' | 'runSeq'>>('SCHED#', ['status', 'seq', 'runSeq']);
    const byStatus: Record<string, number> = {};
    for (const s of states) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
    const runs = perSchedule.size;

    // A third tick at the same instant: nothing is due any more (each run holds its answer deadline).
    counts = fresh();
    const t3 = await a.tick(new Date(DUE_AT));
    await a.settle(60_000);
    const bills2 = await scanPrefix<{ pk: string }>('BILL#', ['pk']);

    // Answers: the bank approves ANSWERS of the billings through the API (concurrency 16);
    // each answer records the outcome and finishes the run (next date) after its commit.
    let answers: Record<string, unknown> | undefined;
    if (ANSWERS > 0) {
      const pending = bills.filter((b) => b.scheduleId).slice(0, ANSWERS);
      counts = fresh();
      const aStarted = performance.now();
      let failed = 0;
      await parallel(pending, 16, async (b) => {
        const r = await call(a, 'POST', '/v1/billing/bank-response', bank.apiKey, {
          billingRequestId: b.billingRequestId,
          action: 'approve_recurring',
          bankTransactionId: `BTX-${b.billingRequestId}`,
        });
        if (r.status !== 200) failed++;
      });
      const aMs = Math.round(performance.now() - aStarted);
      const aCounts = counts;
      counts = fresh(); // the verification scan below is not part of the answers
      const after = await scanPrefix<Pick<ScheduleItem, 'status' | 'totalBillings' | 'nextBillingDate'>>('SCHED#', [
        'status',
        'totalBillings',
        'nextBillingDate',
      ]);
      const advanced = after.filter(
        (s) => s.status === 'active' && s.totalBillings === 1 && s.nextBillingDate === '2027-07-01T09:00:00.000Z',
      ).length;
      answers = {
        answered: pending.length,
        failed,
        ms: aMs,
        perSecond: Math.round((pending.length / aMs) * 1000 * 10) / 10,
        schedulesAdvanced: advanced,
        dynamodbPerAnswer: Math.round((aCounts.dynamodb / pending.length) * 100) / 100,
        byCommand: aCounts.byCommand,
        note: 'includes the API key / rate-limit UpdateItem and the idempotency-free bank-response path: bill read, settle transaction (status, ledger capture, balance shard, settlement batch, schedule outcome record, billing.response), then finishRun (schedule read + one transaction)',
      };
    }

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((x) => Math.round(x * 100) / 100) },
      config: { schedules: N, pollers: POLLERS, jobsBatchSize: 10, dueShards: 8, dueAt: DUE_AT },
      seedSeconds: seedMs / 1000,
      runs: {
        runs,
        seconds: runMs / 1000,
        runsPerSecond: Math.round((runs / runMs) * 1000 * 10) / 10,
        tickMs,
        ticks: [t1, t2],
        zeroDoubleRuns: doubles === 0 && missing === 0,
        schedulesWithMoreThanOneBilling: doubles,
        schedulesWithoutBilling: missing,
        billingsTotal: bills.length,
        scheduleStates: byStatus,
        thirdTick: { ...t3, billingsAfter: bills2.length },
      },
      derived: {
        workerPhaseSeconds: (runMs - tickMs) / 1000,
        workerPhaseRunsPerSecond: Math.round((runs / (runMs - tickMs)) * 1000 * 10) / 10,
        dynamodbPerRunWithoutSecondTick:
          Math.round(((runCounts.dynamodb - Math.max(0, (runCounts.byCommand.UpdateItem ?? 0) - runs)) / runs) * 100) / 100,
        note: 'The jobs are enqueued when a tick has claimed everything, so the workers start after the ticks; the second tick only loses conditional claims (one UpdateItem each).',
      },
      dynamodb: {
        total: runCounts.dynamodb,
        perRun: Math.round((runCounts.dynamodb / runs) * 100) / 100,
        tickOnly: {
          total: afterTick.dynamodb,
          perRun: Math.round((afterTick.dynamodb / runs) * 100) / 100,
          byCommand: afterTick.byCommand,
        },
        byCommand: runCounts.byCommand,
        failedByCommand: runCounts.failed,
      },
      sqs: { total: runCounts.sqs, perRun: Math.round((runCounts.sqs / runs) * 100) / 100, byCommand: runCounts.sqsByCommand },
      answers,
      notes: [
        'Runs go through the real path: scheduler tick (two at once) -> jobs queue (fauxqs) -> local SQS poller -> jobs worker -> recurring.run -> createBilling (one TransactWriteItems: decision lastUsed, month and week limit counters, billing request, schedule claim, billing.request event + its deliveries).',
        'DynamoDB requests per run include the tick (due-index Query pages per shard and one conditional UpdateItem claim per item), the worker (schedule GetItem, merchant + decision BatchGetItem, customer BatchGetItem until cached, outbox endpoint Query, the transaction) and the participant read of the outbox (cached per process).',
        'Failed requests are conditional-check or transaction cancellations of the concurrent second tick (expected: that is the claim working).',
        'Single-process local runtime on a 2-CPU machine with DynamoDB Local (Java) and fauxqs sharing the CPUs; on AWS the jobs queue fans out to concurrent Lambdas.',
      ],
    };
    writeJson(OUT, result);
    console.log(
      JSON.stringify(
        { runs: result.runs, dynamodbPerRun: result.dynamodb.perRun, dynamodbByCommand: result.dynamodb.byCommand, answers },
        null,
        2,
      ),
    );
    if (!result.runs.zeroDoubleRuns || bills2.length !== bills.length) process.exitCode = 1;
  } finally {
    await stack?.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
