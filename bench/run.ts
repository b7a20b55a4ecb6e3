/**
 * npm run bench — every figure of the bench in one run, written to bench/results.json,
 * bench/results.md (printed too), bench/latency.svg and the generated blocks of docs/cost.md.
 *
 * Phases, each in its own process (own DynamoDB Local / fauxqs / module state), in order:
 *   bundles      bench/bundles.ts     size + cold init of every Lambda, Node 24 and 22
 *   lives        bench/lives.ts       bill lives counted item by item (write units, requests on
 *                                     the request path, SQS, per-partition-key writes): DESIGN 9.6
 *   endpoints    bench/endpoints.ts   5 endpoint classes vs their raw-DynamoDB floor (A/B/A/B)
 *   tick         bench/lib/tick.ts    10,000 due items through one tick and the jobs worker
 *   testClock    bench/test-clock.ts  a test clock advanced over 100 daily schedules (issue 21)
 *   webhookCost  bench/lib/webhook-cost.ts  DynamoDB/SQS/duration of one webhook (cost model)
 *   webhooks     bench/webhooks.ts    1,000 events, receiver failing 30 %: throughput
 *   lists        bench/lists.ts       a startingAfter page at 100 vs 100,000 items of history (issue 19)
 *
 * `tsx bench/run.ts --render` re-derives targets, the cost model, results.md, latency.svg and
 * docs/cost.md's generated blocks from bench/results.json without measuring.
 *
 * BENCH_QUICK=1 shortens every phase (fewer rounds, 2,000 due items, 200 events, 60 load lives); the
 * default run produces every figure (58.7 min on the shared 2-CPU machine at load average
 * ~20, 2026-11-27: bundles 12 min, lives 4, endpoints 5.5, tick 4, webhookCost 6, webhooks 5,
 * testClock 10, lists 12). BENCH_PHASES=endpoints,tick
 * runs a subset (the other figures are then missing from the files): the DESIGN 9.6 targets
 * need `BENCH_PHASES=bundles,lives` (with BENCH_QUICK=1: the short run of them).
 * Phase lives also takes BENCH_LOAD_LIVES (200; 60 quick), BENCH_LOAD_CONCURRENCY (8) and
 * BENCH_LIVES_VARIANTS (first,first+key,repeat,repeat+key,repeat-same-hour+key).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, uptime } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latencyChart, type ChartClass } from './chart';
import { costModel } from './lib/cost';
import { costDocBlocks, costMarkdown, fillBlocks, livesMarkdown, metCell, scaleTargets, table, type Target } from './lib/report';
import { BENCH_DIR, loadAverage, machine, runMain, writeJson } from './lib/results';
import { round } from './lib/stats';

const QUICK = process.env.BENCH_QUICK === '1';
const PHASES = ['bundles', 'lives', 'endpoints', 'tick', 'webhookCost', 'webhooks', 'testClock', 'lists'] as const;
type Phase = (typeof PHASES)[number];
const SELF = fileURLToPath(import.meta.url);

// ------------------------------------------------------------------------------------------
// Phase runner (child side): `tsx bench/run.ts --phase <name>` writes BENCH_OUT.

async function runPhase(name: string): Promise<unknown> {
  switch (name) {
    case 'bundles':
      return (await import('./bundles')).runBundles();
    case 'endpoints':
      return (await import('./endpoints')).runEndpoints();
    case 'tick':
      return (await import('./lib/tick')).runTickBench();
    case 'webhookCost':
      return (await import('./lib/webhook-cost')).runWebhookCost();
    case 'testClock':
      return (await import('./test-clock')).runTestClockBench();
    case 'lists':
      return (await import('./lists')).runListsBench();
    case 'lives':
      return (await import('./lives')).runLives();
    default:
      throw new Error(`unknown phase ${name}`);
  }
}

// ------------------------------------------------------------------------------------------
// Orchestrator

function child(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number; stdout: string }> {
  return new Promise((res) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: resolve(BENCH_DIR, '..'),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    const timer = setTimeout(() => p.kill('SIGTERM'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(timer);
      res({ code: code ?? 1, stdout });
    });
  });
}

interface PhaseOutcome {
  ok: boolean;
  seconds: number;
  loadAverage: { start: number[]; end: number[] };
  error?: string;
  data?: any;
}

async function phase(name: Phase, tmp: string): Promise<PhaseOutcome> {
  const start = loadAverage();
  const t0 = performance.now();
  const out = join(tmp, `${name}.json`);
  console.error(`\n=== bench phase ${name} (load ${start.join(' ')}) ===`);
  let res: { code: number; stdout: string };
  let data: any;
  if (name === 'webhooks') {
    // bench/webhooks.ts, run as it is run alone; its result goes to BENCH_OUT.
    const own = join(BENCH_DIR, 'results-webhooks.json');
    let before: string | undefined;
    try {
      before = readFileSync(own, 'utf8');
    } catch {
      /* none yet */
    }
    res = await child(
      [join(BENCH_DIR, 'webhooks.ts')],
      { BENCH_OUT: out, BENCH_EVENTS: QUICK ? '200' : '1000', BENCH_TIMEOUT_S: '600' },
      15 * 60_000,
    );
    // Its own result file belongs to its standalone runs: leave it as it was whatever happens.
    if (before !== undefined && readFileSync(own, 'utf8') !== before) writeFileSync(own, before);
    try {
      data = JSON.parse(readFileSync(out, 'utf8')); // BENCH_OUT (bench/lib/results.ts outPath)
    } catch {
      try {
        data = JSON.parse(res.stdout.slice(res.stdout.indexOf('{'))); // it also prints its result
      } catch {
        data = undefined;
      }
    }
  } else {
    res = await child([SELF, '--phase', name], { BENCH_OUT: out }, 30 * 60_000);
    try {
      data = JSON.parse(readFileSync(out, 'utf8'));
    } catch {
      data = undefined;
    }
  }
  const seconds = round((performance.now() - t0) / 1000, 1);
  const ok = res.code === 0 && data !== undefined;
  return {
    ok,
    seconds,
    loadAverage: { start, end: loadAverage() },
    data,
    ...(ok ? {} : { error: `exit ${res.code}${data === undefined ? ', no result' : ''}` }),
  };
}

function targets(res: any): Target[] {
  const t: Target[] = scaleTargets(res);
  const b = res.bundles;
  if (b) {
    for (const n of b.nodes as { major: string; version: string }[]) {
      const s = b.initMs[n.major];
      const over = (b.overInitLimit as { handler: string; initMs: Record<string, number> }[]).filter(
        (o) => (o.initMs[n.major] ?? 0) >= 150,
      );
      t.push({
        id: `init-node${n.major}`,
        target: `cold module init < 150 ms, Node ${n.major} (${n.version})`,
        value: `max ${s.max} ms, median ${s.median} ms (CPU time: max ${b.initCpuMs?.[n.major]?.max} ms, median ${b.initCpuMs?.[n.major]?.median} ms)`,
        met: over.length === 0,
        note: over.length
          ? `over: ${over.length} of ${b.functions} (${over
              .slice(0, 4)
              .map((o) => `${o.handler} ${o.initMs[n.major]} ms`)
              .join(
                ', ',
              )}${over.length > 4 ? ', …' : ''}) — wall clock on a shared 2-CPU machine at load ${res.phases.bundles.loadAverage.start[0]}; the CPU time of the import is the load-independent figure (see the bundle table)`
          : `slowest: ${b.slowestInit[n.major][0].handler} ${b.slowestInit[n.major][0].ms} ms`,
      });
    }
    if (b.node22Unavailable)
      t.push({
        id: 'init-node22',
        target: 'cold module init < 150 ms, Node 22',
        value: 'not measured',
        met: null,
        note: b.node22Unavailable,
      });
  }
  const e = res.endpoints;
  if (e) {
    for (const c of (e.classes as any[]).filter((c) => c.read)) {
      t.push({
        id: `read-floor-${c.id}`,
        target: `${c.route}: ≥ 50 % of the raw DynamoDB Local floor (req/s)`,
        value: `${round(c.ratio * 100, 0)} % (${c.endpoint.rps} vs ${c.floor.rps} op-sets/s; per-round median ${round(c.ratioMedianOfRounds * 100, 0)} %)`,
        met: c.ratio >= 0.5,
        note:
          c.ratio >= 0.5
            ? `floor = ${c.floorStages.map((s: string[]) => s.join('+')).join(' → ')}`
            : 'the HTTP + middy + zod + handler overhead costs more than the DynamoDB requests themselves at this concurrency; see the notes',
      });
    }
    const bulk = e.lifecycle?.bulkBill;
    if (bulk) {
      t.push({
        id: 'bill-requests-bulk',
        target: `≤ 3 DynamoDB requests per billed phrase — one bill request of ${bulk.phrases} phrases (every request counted, auth included)`,
        value: `${bulk.dynamodb.requests} per phrase (${Object.entries(bulk.dynamodb.byCommand)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')})`,
        met: bulk.dynamodb.requests <= 3,
        note: "per phrase: the TransactWriteItems and the outbox's Query of the bank's endpoints; the auth read and the decision/customer reads are per request",
      });
    }
  }
  const li = res.lists;
  if (li) {
    t.push({
      id: 'list-page-scale',
      target: `a startingAfter page: p50 at ${li.sizes.large} items of history within 1.5x of p50 at ${li.sizes.small}`,
      value: `p50 ${li.startingAfterMs.small.p50} ms vs ${li.startingAfterMs.large.p50} ms (ratio ${li.p50Ratio})`,
      met: li.met,
      note: 'one cursor GetItem + one Query with ExclusiveStartKey and Limit 21; the skip page pays a COUNT over the partition for total',
    });
  }
  return t;
}

function markdown(res: any): string {
  const L: string[] = [];
  L.push(`# Benchmark results (\`npm run bench\`)`);
  L.push('');
  L.push(
    `Recorded ${res.recordedAt} in ${res.durationSeconds} s on ${res.machine.cpus} CPUs (${res.machine.cpuModel}), ${res.machine.memoryGiB} GiB, Node ${res.machine.node}${res.quick ? ', **BENCH_QUICK=1 (short run)**' : ''}.`,
  );
  L.push(
    `Load average at start ${res.loadAverage.start.join(' / ')}, at end ${res.loadAverage.end.join(' / ')} (1/5/15 min; the machine is shared with other test runs: absolute figures are low and noisy, the side-by-side ratios are the ones to read).`,
  );
  L.push('');
  L.push('## Targets');
  L.push('');
  L.push(
    table(
      ['target', 'measured', 'met', 'note'],
      res.targets.map((t: Target) => [t.target, t.value, metCell(t.met), t.note]),
    ),
  );
  L.push(...livesMarkdown(res));
  const e = res.endpoints;
  if (e) {
    L.push('');
    L.push(`## Endpoint classes vs the raw DynamoDB Local floor (concurrency ${e.config.concurrency})`);
    L.push('');
    L.push(
      `${e.config.rounds} rounds of ${e.config.secondsPerRun} s each (batch customers: ${e.config.secondsPerRun * 2} s) for the endpoint (autocannon through the local HTTP server) and its floor (the same DynamoDB requests sent raw through the document client), interleaved A/B/A/B; both count what completes within the window. ms = latency.`,
    );
    L.push('');
    L.push(
      table(
        [
          'class',
          'route',
          'req/s',
          'p50 ms',
          'p99 ms',
          'floor op-sets/s',
          'floor p50',
          'floor p99',
          'ratio (req/s)',
          'serial p50 ms (c=1)',
          'floor = raw requests',
        ],
        e.classes.map((c: any) => [
          c.label,
          c.route,
          c.endpoint.rps,
          c.endpoint.latency.p50,
          c.endpoint.latency.p99,
          c.floor.rps,
          c.floor.latency.p50,
          c.floor.latency.p99,
          `${round(c.ratio * 100, 0)} %`,
          c.serial.latency.p50,
          c.floorStages.map((s: string[]) => s.join(' + ')).join(' → '),
        ]),
      ),
    );
    L.push('');
    L.push('![latency per endpoint class](latency.svg)');
    L.push('');
    L.push('### DynamoDB per operation (measured during the concurrency-16 runs, retries included)');
    L.push('');
    L.push(
      table(
        [
          'class',
          'unit',
          'requests',
          'by command',
          'auth / app',
          'RCU (read units)',
          'WCU (write units)',
          'of which GSI',
          'transaction items',
          'SQS msgs',
          'log bytes/req',
        ],
        e.classes.map((c: any) => {
          const d = c.dynamodb;
          const gsi = round(
            Object.values(d.capacity.indexes as Record<string, number>).reduce((a, b) => a + b, 0),
            2,
          );
          return [
            c.label,
            c.unit,
            d.requests,
            Object.entries(d.byCommand)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
            `${d.byPurpose.auth} / ${d.byPurpose.app}`,
            d.capacity.read,
            d.capacity.write,
            gsi,
            Object.entries(d.transactItems)
              .filter(([, v]) => Number(v) > 0)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ') || '—',
            c.sqsMessagesPerUnit,
            c.logBytesPerRequest,
          ];
        }),
      ),
    );
    const lc = e.lifecycle ?? {};
    if (lc.bankResponseApprove || lc.bulkBill) {
      L.push('');
      L.push("### Rest of a bill's life and bulk billing (concurrency 1)");
      L.push('');
      const rows: unknown[][] = [];
      if (lc.bankResponseApprove) {
        const b = lc.bankResponseApprove;
        rows.push([
          b.route,
          `${b.requests} requests`,
          `p50 ${b.latency.p50} ms`,
          b.dynamodb.requests,
          Object.entries(b.dynamodb.byCommand)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
          b.dynamodb.capacity.read,
          b.dynamodb.capacity.write,
          b.sqsMessagesPerUnit,
        ]);
      }
      if (lc.bulkBill) {
        const b = lc.bulkBill;
        rows.push([
          `POST /v1/customer/bill, ${b.phrases} phrases in one request`,
          `${b.billed} billed`,
          `${b.ms} ms total`,
          b.dynamodb.requests,
          Object.entries(b.dynamodb.byCommand)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
          b.dynamodb.capacity.read,
          b.dynamodb.capacity.write,
          '—',
        ]);
      }
      L.push(table(['operation', 'n', 'time', 'DynamoDB requests / unit', 'by command', 'RCU', 'WCU', 'SQS msgs'], rows));
    }
  }
  const t = res.tick;
  if (t) {
    L.push('');
    L.push(`## Tick throughput (${t.items.toLocaleString('en-US')} due items, ${t.shards} due shards, one tick)`);
    L.push('');
    L.push(
      table(
        [
          'tick (query + claim + enqueue)',
          'claims/s',
          'after the tick',
          'end to end (due → all run)',
          'DynamoDB per item (tick + worker)',
          'RCU / WCU per item',
          'double runs',
          'missing',
          'second tick found',
        ],
        [
          [
            `${t.tick.ms} ms`,
            t.tick.claimsPerSecond,
            `${t.worker.ms} ms`,
            `${t.endToEnd.ms} ms (${t.endToEnd.itemsPerSecond}/s)`,
            `${t.dynamodbPerItem.requests} (${Object.entries(t.dynamodbPerItem.byCommand)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')})`,
            `${t.dynamodbPerItem.capacity.read} / ${t.dynamodbPerItem.capacity.write}`,
            t.doubleRuns,
            t.missing,
            t.secondTick.found,
          ],
        ],
      ),
    );
    L.push('');
    L.push(
      "Synthetic due kind (`bench.noop`): the worker only takes the item off the index (the claim-conditioned UpdateItem every kind ends with), so this is the time path's own throughput; a real kind adds its state change.",
    );
  }
  const li = res.lists;
  if (li) {
    L.push('');
    L.push(
      `## List pages (bench/lists.ts: transaction history, ${li.sizes.small} vs ${li.sizes.large} items of one merchant, ${li.rounds} interleaved rounds)`,
    );
    L.push('');
    L.push(
      table(
        ['page', `p50 / p95 at ${li.sizes.small}`, `p50 / p95 at ${li.sizes.large}`, 'p50 ratio'],
        [
          [
            'limit=20&startingAfter=<middle>',
            `${li.startingAfterMs.small.p50} / ${li.startingAfterMs.small.p95} ms`,
            `${li.startingAfterMs.large.p50} / ${li.startingAfterMs.large.p95} ms`,
            li.p50Ratio,
          ],
          [
            'limit=20 (skip page: + COUNT for total)',
            ...[li.skipPageMs.small, li.skipPageMs.large].map((x: any) => (x.failed ? `failed: ${x.failed}` : `${x.p50} / ${x.p95} ms`)),
            '—',
          ],
          [
            'the COUNT Query alone (in process)',
            `${li.countQueryMs.small} ms`,
            `${li.countQueryMs.large} ms`,
            round(li.countQueryMs.large / li.countQueryMs.small, 1),
          ],
        ],
      ),
    );
  }
  const tc = res.testClock;
  if (tc) {
    L.push('');
    L.push(`## Test clock advance (bench/test-clock.ts: ${tc.schedules} daily schedules on one clock, simulated bank)`);
    L.push('');
    L.push(
      table(
        ['advanced', 'runs', 'steps', 'wall time', 'runs/s', 'one year (365 days), extrapolated'],
        [
          [
            `${tc.days} days`,
            tc.runs,
            tc.steps,
            `${round(tc.advanceMs / 1000, 1)} s`,
            tc.runsPerSecond,
            `${tc.yearExtrapolatedMinutes} min`,
          ],
        ],
      ),
    );
    L.push('');
    L.push(
      "Each run is its pre-debit notice, the run, the simulated bank's answer and a share of the day's settlement, all through the real workers in the clock's due order; the time grows linearly with schedules x days (one clock's partition), so the year is the measured rate x 365 days.",
    );
  }
  const w = res.webhooks;
  const wc = res.webhookCost;
  if (w || wc) {
    L.push('');
    L.push('## Webhooks');
    L.push('');
    if (w) {
      L.push(
        `bench/webhooks.ts: ${w.events} events → ${w.deliveries} deliveries to ${w.config.endpoints} endpoints, receiver failing ${round(w.config.failRate * 100, 0)} % at random, backoff base ${w.config.backoffBaseSeconds} s, ${w.config.pollersPerQueue} poller set.`,
      );
      L.push('');
      L.push(
        table(
          [
            'committed events/s',
            'first attempts/s',
            'all delivered in',
            'deliveries/s (incl. backoff)',
            'attempts (mean / max)',
            'duplicates after 2xx',
            'wrong endpoint',
            'ok',
          ],
          [
            [
              w.commitsPerSecond,
              w.firstAttemptsPerSecond,
              `${round(w.allDeliveredMs / 1000, 1)} s`,
              w.deliveriesPerSecond,
              `${w.attemptsPerDelivery.mean} / ${w.attemptsPerDelivery.max}`,
              w.duplicatesAfterSuccess,
              w.wrongEndpoint,
              w.ok,
            ],
          ],
        ),
      );
      L.push('');
    }
    if (wc) {
      const d = wc.delivery;
      L.push(`One webhook, measured at concurrency 1 (${wc.events} events, receiver always 200, worker invoked with batches of up to 10):`);
      L.push('');
      L.push(
        table(
          ['part', 'DynamoDB requests', 'RCU', 'WCU', 'SQS', 'duration'],
          [
            [
              'outbox commit of 1 event + 1 delivery (alone)',
              wc.commit.dynamodbPerEvent.requests,
              wc.commit.dynamodbPerEvent.capacity.read,
              wc.commit.dynamodbPerEvent.capacity.write,
              `${wc.commit.sqsMessagesPerEvent} msg sent`,
              `p50 ${wc.commit.latency.p50} ms`,
            ],
            [
              'delivery (worker)',
              d.dynamodbPerDelivery.requests,
              d.dynamodbPerDelivery.capacity.read,
              d.dynamodbPerDelivery.capacity.write,
              Object.entries(d.sqsPerDelivery)
                .map(([k, v]) => `${k} ${v}`)
                .join(', '),
              `${d.workerMsPerMessage} ms per message (${d.messagesPerBatch} per batch, batch p50 ${d.workerMsPerBatch.p50} ms)`,
            ],
          ],
        ),
      );
    }
  }
  const b = res.bundles;
  if (b) {
    L.push('');
    L.push(
      `## Lambda bundles (${b.functions} functions; esbuild as lib/lambda.ts; cold init = import() in a fresh process, median of ${b.initRuns}, no NODE_OPTIONS as deployed)`,
    );
    L.push('');
    const majors = (b.nodes as { major: string; version: string }[]).map((n) => n.major);
    L.push(
      `Size: min ${round(b.sizeBytes.min / 1024, 1)} KB, median ${round(b.sizeBytes.median / 1024, 1)} KB, max ${round(b.sizeBytes.max / 1024, 1)} KB. Init (wall clock): ${(b.nodes as { major: string; version: string }[]).map((n) => `Node ${n.version} median ${b.initMs[n.major].median} ms, max ${b.initMs[n.major].max} ms (CPU median ${b.initCpuMs?.[n.major]?.median} ms, max ${b.initCpuMs?.[n.major]?.max} ms)`).join('; ')}; load average during the phase ${res.phases.bundles.loadAverage.start.join(' ')} → ${res.phases.bundles.loadAverage.end.join(' ')}.${b.node22Unavailable ? ` Node 22 not measured: ${b.node22Unavailable}` : ''}`,
    );
    L.push('');
    L.push(
      table(
        ['function (functions/…)', 'route / worker', 'KB', ...majors.flatMap((m) => [`init ms Node ${m}`, `init CPU ms Node ${m}`])],
        [...(b.results as any[])]
          .sort((x, y) => y.bytes - x.bytes)
          .map((r) => [r.handler, r.what, r.kb, ...majors.flatMap((m) => [r.initMs[m], r.initCpuMs?.[m]])]),
      ),
    );
  }
  if (res.notes?.length) {
    L.push('');
    L.push('## Notes');
    L.push('');
    for (const n of res.notes) L.push(`- ${n}`);
  }
  const failed = Object.entries(res.phases).filter(([, p]: [string, any]) => !p.ok);
  if (failed.length) {
    L.push('');
    L.push(`**Phases that failed:** ${failed.map(([k, p]: [string, any]) => `${k} (${p.error})`).join(', ')}`);
  }
  L.push(...costMarkdown(res));
  return `${L.join('\n')}\n`;
}

/** What the figures are (about the code, so --render takes them from here). */
const NOTES = [
  'Endpoint figures run the handlers in this one Node process behind the local HTTP server (as `npm start`), with autocannon in the same process; on AWS each request runs in its own Lambda instance, so concurrency 16 here is 16 requests sharing 2 CPUs with DynamoDB Local (Java) and the load generator.',
  "The floor replays the endpoint's own recorded DynamoDB requests (reads as recorded, the auth request on the same API-key item, writes with the same items on fresh keys so they never conflict) — bench/lib/floor.ts. Its consumed capacity per op-set is in results.json (floorDynamodb) next to the endpoint's.",
  'Write units of the bill lives (phase lives) are counted item by item by the bench (bench/lib/write-units.ts, bench/lib/proxies.ts): the items and index copies each write changes, from their images before and after. The endpoint, tick and webhookCost phases show what DynamoDB Local reports with ReturnConsumedCapacity INDEXES, which is wrong for transactions (it counts items of identical size once, and a ConditionCheck as 0): use them for requests, not for write units.',
  "DynamoDB requests per unit count every command of the measured runs (retries after TransactionConflict included) over the 2xx responses the server finished, including requests still in flight at a run's deadline (the run waits for them).",
  "serial p50 (concurrency 1) is a local wall-clock time; the cost model's Lambda duration is modelled from the lives phase's CPU time and round trips (bench/lib/cost.ts LAMBDA_MODEL).",
];

/** Targets, cost model, results.json, results.md (printed), latency.svg, docs/cost.md's blocks. */
function finalize(res: any): void {
  res.notes = NOTES;
  res.costModel = costModel(res);
  res.targets = targets(res);
  writeJson(join(BENCH_DIR, 'results.json'), res);
  if (res.endpoints?.classes?.length) {
    const svg = latencyChart(
      res.endpoints.classes as ChartClass[],
      `concurrency ${res.endpoints.config.concurrency} · ${String(res.recordedAt).slice(0, 16)}Z · ${res.machine.cpus} CPUs · load ${res.loadAverage.start.join(' ')}`,
    );
    writeFileSync(join(BENCH_DIR, 'latency.svg'), svg);
  }
  const md = markdown(res);
  writeFileSync(join(BENCH_DIR, 'results.md'), md);
  // docs/cost.md: its generated blocks from this run (the prose around them is kept).
  const costDoc = resolve(BENCH_DIR, '../docs/cost.md');
  const notRun = PHASES.filter((p) => !res.phases?.[p]?.ok).join(', ');
  const missing = `_Not measured by the run of ${res.recordedAt}${notRun ? ` (phases not run: ${notRun})` : ''}: \`npm run bench\` measures it._`;
  writeFileSync(costDoc, fillBlocks(readFileSync(costDoc, 'utf8'), costDocBlocks(res), missing));
  console.log(md);
}

async function orchestrate(): Promise<void> {
  const wanted = (process.env.BENCH_PHASES?.split(',').filter(Boolean) ?? [...PHASES]) as Phase[];
  const tmp = mkdtempSync(join(tmpdir(), 'idpay-bench-'));
  const started = performance.now();
  const m = machine();
  console.error(
    `npm run bench: load average ${m.loadAverage.join(' ')} on ${m.cpus} CPUs, uptime ${Math.round(uptime() / 60)} min${QUICK ? ' (BENCH_QUICK=1)' : ''}`,
  );
  const outcomes = {} as Record<Phase, PhaseOutcome>;
  try {
    for (const p of PHASES) {
      outcomes[p] = wanted.includes(p)
        ? await phase(p, tmp)
        : { ok: false, seconds: 0, loadAverage: { start: [], end: [] }, error: 'not run (BENCH_PHASES)' };
      if (!outcomes[p].ok) console.error(`bench phase ${p}: ${outcomes[p].error}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const strip = (d: any) => {
    if (!d) return undefined;
    const { phase: _p, machine: _m, ...rest } = d;
    return rest;
  };
  const res: any = {
    benchmark:
      'npm run bench: bill lives counted item by item (DESIGN 9.6), Lambda bundles and cold init, endpoint classes vs raw DynamoDB floor, tick and webhook throughput, test clocks, list pages',
    recordedAt: new Date().toISOString(),
    durationSeconds: round((performance.now() - started) / 1000, 0),
    quick: QUICK,
    machine: m,
    loadAverage: { start: m.loadAverage, end: loadAverage(), note: 'os.loadavg() 1/5/15 min; per phase below' },
    phases: Object.fromEntries(
      Object.entries(outcomes).map(([k, o]) => [
        k,
        { ok: o.ok, seconds: o.seconds, loadAverage: o.loadAverage, ...(o.error ? { error: o.error } : {}) },
      ]),
    ),
    targets: [] as Target[],
    endpoints: strip(outcomes.endpoints.data),
    tick: strip(outcomes.tick.data),
    webhookCost: strip(outcomes.webhookCost.data),
    webhooks: outcomes.webhooks.data,
    testClock: strip(outcomes.testClock.data),
    lists: strip(outcomes.lists.data),
    lives: strip(outcomes.lives.data),
    bundles: strip(outcomes.bundles.data),
    notes: NOTES,
  };
  finalize(res);
  if (Object.values(outcomes).some((o) => !o.ok && o.error !== 'not run (BENCH_PHASES)')) process.exitCode = 1;
}

const phaseArg = process.argv.indexOf('--phase');
if (process.argv.includes('--render')) {
  // Re-derive targets, cost model, results.md and latency.svg from bench/results.json.
  runMain(async () => finalize(JSON.parse(readFileSync(join(BENCH_DIR, 'results.json'), 'utf8'))));
} else if (phaseArg > 0) {
  runMain(async () => {
    const name = process.argv[phaseArg + 1]!;
    const data = (await runPhase(name)) as Record<string, unknown>;
    writeJson(process.env.BENCH_OUT!, { phase: name, recordedAt: new Date().toISOString(), machine: machine(), ...data });
  });
} else {
  runMain(orchestrate);
}
