/**
 * `POST /v1/sandbox/settlements/run` answers once (DESIGN 8.8; issue: it answered 500 after it
 * had settled, and its retry reported only its own part). The cause: the helper settled every
 * day in one request with no time bound; each day costs work per capture (its lines stamped,
 * its transactions named), so a merchant with a few hundred captures ran past the function's
 * timeout (30 s locally: middy's early timeout answered 500 while the settling went on; 15 s
 * on AWS). The 5xx released the Idempotency-Key, so the retry ran again beside the first and
 * reported only the days it settled itself. Now the helper starts no day after a few seconds,
 * answers what is settled and what remains, and a replay returns that first answer.
 * Real local stack; captures through the billing flow's own code (money-fixtures).
 */
import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../functions/platform/retry';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { ledgerProblems } from '../support/billing-table';
import { fixtureBill, lagos, type Parties } from '../support/money-fixtures';

let t: TestApp;
withAppAndReceiver((app) => {
  t = app;
});

/** The longest a Lambda behind API Gateway may run here (lib/api.ts: 15 s). */
const FUNCTION_TIMEOUT_MS = 15_000;

async function merchantWithCaptures(count: number, days: string[]): Promise<{ key: string; id: string; total: number }> {
  const merchant = await t.participant('merchant');
  const bank = await t.participant('bank');
  const parties: Parties = { merchant: { id: merchant.id, name: merchant.name }, bankId: bank.id };
  const amounts = Array.from({ length: count }, (_, i) => 10_000 + i); // minor units
  await mapLimit([...amounts.keys()], 16, async (i) => {
    await fixtureBill({ parties, amount: amounts[i]!, capturedAt: lagos(`${days[i % days.length]}T10:00:00`) });
  });
  return { key: merchant.apiKey, id: merchant.id, total: amounts.reduce((s, a) => s + a, 0) };
}

const run = (key: string, idempotencyKey: string) =>
  t.call('POST', '/v1/sandbox/settlements/run', { key, body: {}, headers: { 'Idempotency-Key': idempotencyKey } });
const minor = (major: number) => Math.round(major * 100);

describe('POST /v1/sandbox/settlements/run answers once', () => {
  it('a backlog of 480 captures over 8 days: every call answers 200 within the function timeout with what it settled and what remains; a replay returns the first answer; the calls together settle everything once', async () => {
    const days = ['2030-03-04', '2030-03-05', '2030-03-06', '2030-03-07', '2030-03-08', '2030-03-11', '2030-03-12', '2030-03-13'];
    const m = await merchantWithCaptures(480, days);

    const startedAt = Date.now();
    const first = await run(m.key, 'settle-backlog-1');
    const took = Date.now() - startedAt;
    expect(first.status, JSON.stringify(first.body).slice(0, 300)).toBe(200);
    expect(took).toBeLessThan(FUNCTION_TIMEOUT_MS);
    const data = first.body.data;
    expect(minor(data.settledAmount) + minor(data.remainingAmount)).toBe(m.total);
    expect(minor(data.settledAmount)).toBe(data.settlements.reduce((s: number, x: { amount: number }) => s + minor(x.amount), 0));
    // What it reports is what is stored.
    for (const s of data.settlements) {
      const d = await t.call('GET', `/v1/settlements/${s.settlementId}`, { key: m.key });
      expect(d.status).toBe(200);
      expect(d.body.data).toMatchObject({ settlementId: s.settlementId, businessDate: s.settlementDate, amount: s.amount });
    }

    const replay = await run(m.key, 'settle-backlog-1');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    let settled = minor(data.settledAmount);
    let remaining = minor(data.remainingAmount);
    const ids = new Set<string>(data.settlements.map((s: { settlementId: string }) => s.settlementId));
    for (let call = 2; remaining > 0; call++) {
      expect(call, 'calls until everything is settled').toBeLessThanOrEqual(20);
      const at = Date.now();
      const next = await run(m.key, `settle-backlog-${call}`);
      expect(next.status, JSON.stringify(next.body).slice(0, 300)).toBe(200);
      expect(Date.now() - at).toBeLessThan(FUNCTION_TIMEOUT_MS);
      for (const s of next.body.data.settlements) {
        expect(ids.has(s.settlementId), `${s.settlementId} reported by two sequential calls`).toBe(false);
        ids.add(s.settlementId);
      }
      settled += minor(next.body.data.settledAmount);
      remaining = minor(next.body.data.remainingAmount);
    }
    expect(settled).toBe(m.total);
    expect(ids.size).toBe(days.length);
    const bal = await t.call('GET', '/v1/balance/details', { key: m.key });
    expect(bal.body.data).toMatchObject({ unsettledBalance: 0, settledBalance: m.total / 100 });
    expect(await ledgerProblems(m.id)).toEqual([]);
  }, 600_000);

  it('concurrent runs: a run whose days another run settled first still reports those settlements; every report of a day names the same settlement; the money settles once', async () => {
    // Whether one run reads a day before another settles it is up to timing (a run that
    // starts after the others finished finds nothing pending and reports nothing): each
    // attempt asserts what always holds, and the attempts together must see the overlap.
    let overlapped = false;
    for (let attempt = 1; attempt <= 5 && !overlapped; attempt++) {
      const days = ['2030-04-01', '2030-04-02', '2030-04-03'];
      const m = await merchantWithCaptures(12, days);
      const runs = await Promise.all(['a', 'b', 'c'].map((x) => run(m.key, `together-${attempt}-${x}`)));
      const byDay = new Map<string, Set<string>>();
      const reporters = new Map<string, number>();
      for (const r of runs) {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        for (const s of r.body.data.settlements as { settlementId: string; settlementDate: string }[]) {
          byDay.set(s.settlementDate, (byDay.get(s.settlementDate) ?? new Set()).add(s.settlementId));
          reporters.set(s.settlementId, (reporters.get(s.settlementId) ?? 0) + 1);
        }
      }
      for (const [day, ids] of byDay) expect([...ids], `settlements reported for ${day}`).toHaveLength(1);
      // Only one run can have made each settlement: a second report is a run that found its day taken.
      overlapped = Math.max(0, ...reporters.values()) > 1;
      // What the runs left (their time is bounded) a later call settles; in total, once.
      for (let call = 1; ; call++) {
        const next = await run(m.key, `together-${attempt}-after-${call}`);
        expect(next.status).toBe(200);
        for (const s of next.body.data.settlements as { settlementId: string }[]) expect(reporters.has(s.settlementId)).toBe(false);
        if (next.body.data.remainingAmount === 0) break;
        expect(call).toBeLessThan(10);
      }
      const bal = await t.call('GET', '/v1/balance/details', { key: m.key });
      expect(bal.body.data).toMatchObject({ unsettledBalance: 0, settledBalance: m.total / 100 });
      expect(await ledgerProblems(m.id)).toEqual([]);
    }
    expect(overlapped, 'in 5 attempts, no settlement was reported by more than one run').toBe(true);
  }, 300_000);
});
