/**
 * Benchmark (not part of npm test; issue 21): how long advancing a sandbox test clock takes.
 * BENCH_CLOCK_SCHEDULES daily schedules (default 100) on one clock, their customers magic
 * `approve.recurring@` customers of a simulated bank (so every run is answered, paid and
 * settled through the real workers), then one advance of BENCH_CLOCK_DAYS days (default 30),
 * driven by real ticks until the clock is `ready`. Prints and writes
 * bench/results-test-clock.json: wall time, due items processed, items per second, and the
 * year (365 days) extrapolated from the measured rate (the advance is one clock's partition in
 * due order, so its time grows linearly with schedules x days).
 *
 *   npx tsx bench/test-clock.ts      (also a phase of npm run bench: `testClock`)
 */
import { cpus, loadavg } from 'node:os';
import { frozenAt, withTestClock } from '../functions/platform/clock';
import { createTestClock } from '../functions/sandbox/test-clock-store';
import { magicEmail } from '../functions/sandbox/magic';
import { outPath, runMain, writeJson } from './lib/results';
import { seedSchedules } from './lib/seed-recurring';
import { startBenchStack } from './lib/stack';

const N = Number(process.env.BENCH_CLOCK_SCHEDULES ?? 100);
const DAYS = Number(process.env.BENCH_CLOCK_DAYS ?? (process.env.BENCH_QUICK === '1' ? 7 : 30));
const START = '2027-01-01T00:00:00.000Z';
const OUT = outPath('results-test-clock.json');

/** The phase of `npm run bench` (bench/run.ts) and `npx tsx bench/test-clock.ts`. */
export async function runTestClockBench() {
  const stack = await startBenchStack({ pollers: 4, env: { PRE_DEBIT_NOTICE_SECONDS: '86400', SANDBOX_BANK_DELAY_SECONDS: '1' } });
  try {
    const mk = async (body: Record<string, unknown>) =>
      (await stack.must(201, 'POST', '/v1/operator/participants', stack.operatorKey, body)).data;
    const bank = await mk({ type: 'bank', name: 'Bench Sim Bank', email: `sim-${stack.run}@bench.test`, simulated: true });
    const provider = await mk({ type: 'provider', name: 'Bench Provider', email: `prov-${stack.run}@bench.test` });
    await stack.must(200, 'PATCH', `/v1/operator/providers/${provider.id}`, stack.operatorKey, { maxTrustLevel: 'premium' });
    const merchant = await mk({ type: 'merchant', name: 'Bench Gym', email: `gym-${stack.run}@bench.test`, providerId: provider.id });
    await stack.must(200, 'PATCH', '/v1/provider/merchant/trust', provider.apiKey, {
      entityId: merchant.id,
      trusted: true,
      trustLevel: 'premium',
    });

    const clock = await createTestClock(merchant.id, START, 'bench');
    await withTestClock(frozenAt(clock.clockId, Date.parse(START)), () =>
      seedSchedules({
        n: N,
        bankId: bank.id,
        merchantId: merchant.id,
        providerId: provider.id,
        frequency: 'daily',
        startDate: '2027-01-01T08:00:00.000Z',
        email: () => magicEmail({ local: 'approve.recurring' }),
      }),
    );
    const target = new Date(Date.parse(START) + DAYS * 86_400_000).toISOString();
    const load = loadavg().map((x) => Math.round(x * 100) / 100);
    const started = performance.now();
    await stack.must(202, 'POST', `/v1/sandbox/test-clocks/${clock.clockId}/advance`, merchant.apiKey, { frozenTime: target });
    let steps = 0;
    for (;;) {
      steps++;
      await stack.app.tick(new Date());
      await stack.app.settle(60 * 60 * 1000);
      const c = await stack.must(200, 'GET', `/v1/sandbox/test-clocks/${clock.clockId}`, merchant.apiKey);
      if (c.data.status === 'ready') break;
    }
    const ms = Math.round(performance.now() - started);
    const runs = N * DAYS;
    const result = {
      schedules: N,
      days: DAYS,
      runs,
      steps,
      advanceMs: ms,
      runsPerSecond: Math.round((runs / ms) * 1000 * 10) / 10,
      yearExtrapolatedMinutes: Math.round(((ms / DAYS) * 365) / 600) / 100,
      machine: { cpus: cpus().length, loadAtStart: load },
    };
    console.log(
      `test clock: ${N} daily schedules advanced ${DAYS} days = ${runs} runs in ${(ms / 1000).toFixed(1)} s (${steps} steps, ${result.runsPerSecond} runs/s); one year extrapolated: ${result.yearExtrapolatedMinutes} min`,
    );
    writeJson(OUT, result);
    return result;
  } finally {
    await stack.stop();
  }
}

if (process.argv[1] && /test-clock\.ts$/.test(process.argv[1])) runMain(runTestClockBench);
