/**
 * Benchmark (issue 19, DESIGN 8.9): the cost of a list page with `startingAfter` must not grow
 * with history. Two merchants, one with BENCH_LIST_SMALL (default 100) and one with
 * BENCH_LIST_LARGE (default 100,000) transactions, seeded straight into the table
 * (bench/lib/seed-history.ts). Then, in the same run and interleaved (small, large, small,
 * ...), GET /v1/transaction-history?limit=20&startingAfter=<the middle of the history> through
 * the local HTTP runtime: p50/p95 per size, and their ratio (target: p50 at 100,000 within
 * 1.5x of p50 at 100). For comparison, the release-1 skip page (skip=0: the page plus a
 * `Select: COUNT` Query for `total`) at both sizes, fewer rounds. Writes
 * bench/results-lists.json.
 *
 *   npx tsx bench/lists.ts      (also a phase of npm run bench: `lists`)
 */
import { cpus, loadavg } from 'node:os';
import { outPath, runMain, writeJson } from './lib/results';
import { seedHistory } from './lib/seed-history';
import { startBenchStack } from './lib/stack';
import { percentile, round } from './lib/stats';
import { countMatches } from '../functions/platform/list-page';
import { transactionRange, transactionScope } from '../functions/transactions/store';

const QUICK = process.env.BENCH_QUICK === '1';
const SMALL = Number(process.env.BENCH_LIST_SMALL ?? 100);
const LARGE = Number(process.env.BENCH_LIST_LARGE ?? (QUICK ? 20_000 : 100_000));
const ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? (QUICK ? 60 : 200));
const SKIP_ROUNDS = 3;
const OUT = outPath('results-lists.json');

const stat = (xs: number[]) => ({
  count: xs.length,
  p50: round(percentile(xs, 50), 1),
  p95: round(percentile(xs, 95), 1),
  max: round(Math.max(...xs), 1),
});

/** The phase of `npm run bench` (bench/run.ts) and `npx tsx bench/lists.ts`. */
export async function runListsBench() {
  const stack = await startBenchStack({ pollers: 0, env: { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'SILENT' } });
  try {
    const bank = await stack.participant('bank');
    const small = await stack.participant('merchant');
    const large = await stack.participant('merchant');
    const seedStarted = performance.now();
    const [smallIds, largeIds] = await Promise.all([
      seedHistory({ n: SMALL, merchant: small, bankId: bank.id, start: '2029-01-01T00:00:00.000Z' }),
      seedHistory({ n: LARGE, merchant: large, bankId: bank.id, start: '2029-01-01T00:00:00.000Z' }),
    ]);
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
    console.log(`lists: seeded ${SMALL} + ${LARGE} transactions in ${seedSeconds} s`);

    const sizes = [
      { name: 'small', n: SMALL, key: small.apiKey, cursor: smallIds[Math.floor(SMALL / 2)]! },
      { name: 'large', n: LARGE, key: large.apiKey, cursor: largeIds[Math.floor(LARGE / 2)]! },
    ];
    const timed = async (key: string, query: string, expectItems: number) => {
      const started = performance.now();
      const r = await stack.call('GET', `/v1/transaction-history?${query}`, key);
      const ms = performance.now() - started;
      if (r.status !== 200 || r.body.data.transactions.length !== expectItems)
        throw new Error(`unexpected answer: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return ms;
    };
    const load = loadavg().map((x) => round(x));
    // Warm-up (handler modules, connections), not counted.
    for (let i = 0; i < 20; i++) for (const s of sizes) await timed(s.key, `limit=20&startingAfter=${s.cursor}`, 20);
    const cursorMs: Record<string, number[]> = { small: [], large: [] };
    for (let i = 0; i < ROUNDS; i++)
      for (const s of sizes) cursorMs[s.name]!.push(await timed(s.key, `limit=20&startingAfter=${s.cursor}`, 20));
    // The release-1 page (skip=0) pays a COUNT of the whole partition for `total`: the COUNT
    // Query alone, in this process, then the page over HTTP (only where the COUNT fits well in
    // the local 30 s Lambda timeout: an abandoned COUNT keeps DynamoDB Local busy).
    const countMs: Record<string, number> = {};
    for (const s of sizes) {
      const merchant = s.name === 'small' ? small : large;
      const started = performance.now();
      const n = await countMatches(transactionRange(transactionScope({ kind: 'merchant', id: merchant.id }), {}));
      countMs[s.name] = round(performance.now() - started, 1);
      if (n !== s.n) throw new Error(`COUNT gave ${n}, expected ${s.n}`);
    }
    const skipMs: Record<string, number[]> = { small: [], large: [] };
    const skipFailures: Record<string, string> = {};
    for (let i = 0; i < SKIP_ROUNDS; i++) {
      for (const s of sizes) {
        if (skipFailures[s.name]) continue;
        if (countMs[s.name]! > 15_000) {
          skipFailures[s.name] = `not timed over HTTP: its COUNT alone takes ${countMs[s.name]} ms (local Lambda timeout 30 s)`;
          continue;
        }
        try {
          skipMs[s.name]!.push(await timed(s.key, 'limit=20', 20));
        } catch (e) {
          skipFailures[s.name] = (e as Error).message.slice(0, 120);
        }
      }
    }

    const cursor = { small: stat(cursorMs.small!), large: stat(cursorMs.large!) };
    const orFailure = (name: string) => (skipMs[name]!.length ? stat(skipMs[name]!) : { failed: skipFailures[name] });
    const skip = { small: orFailure('small'), large: orFailure('large') };
    const ratio = round(cursor.large.p50 / cursor.small.p50, 2);
    const result = {
      what: 'GET /v1/transaction-history?limit=20&startingAfter=<middle of history>, local HTTP runtime + DynamoDB Local, interleaved small/large',
      sizes: { small: SMALL, large: LARGE },
      rounds: ROUNDS,
      seedSeconds,
      startingAfterMs: cursor,
      p50Ratio: ratio,
      target: 'p50 at the large size within 1.5x of p50 at the small size',
      met: ratio <= 1.5,
      skipPageMs: {
        ...skip,
        note: 'skip=0&limit=20: the page plus a Select COUNT Query over the whole partition for total (release-1 shape); local Lambda timeout 30 s',
      },
      countQueryMs: { ...countMs, note: 'the Select COUNT Query alone (all pages), in process, no timeout' },
      machine: { cpus: cpus().length, loadAtStart: load },
    };
    console.log(
      `lists: startingAfter page p50/p95 ${cursor.small.p50}/${cursor.small.p95} ms at ${SMALL}, ${cursor.large.p50}/${cursor.large.p95} ms at ${LARGE} (ratio ${ratio}, target <= 1.5); skip page with total ${JSON.stringify(skip)}; COUNT alone ${countMs.small} ms / ${countMs.large} ms`,
    );
    writeJson(OUT, result);
    return result;
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] && /lists\.ts$/.test(process.argv[1])) runMain(runListsBench);
