/**
 * Powertools Metrics and Logger: real flows on the local stack emit the EMF
 * metrics operations alarm and graph on (namespace `idpay`, dimensions service + stage, a
 * refusal code or billing type where it says), and every log line of an API request
 * carries that request's X-Request-Id, also under concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../functions/platform/log';
import { onMetricsLine } from '../../functions/platform/metrics';
import { startTestApp, type TestApp } from '../support/app';
import { agreement, bill, payee } from '../support/flows';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
const lines: string[] = [];
let unsubscribe: () => void;
beforeAll(async () => {
  // A low per-key limit so that a burst meets 429s.
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '40' });
  unsubscribe = onMetricsLine((l) => lines.push(l));
});
afterAll(async () => {
  unsubscribe?.();
  await t?.stop();
});

interface Emitted {
  name: string;
  value: number;
  unit: string;
  dimensions: Record<string, string>;
}

/** Every metric value of the EMF lines seen since `from`. */
function emitted(from = 0): Emitted[] {
  const out: Emitted[] = [];
  for (const line of lines.slice(from)) {
    const emf = JSON.parse(line);
    const meta = emf._aws.CloudWatchMetrics[0];
    expect(meta.Namespace).toBe('idpay');
    const dimNames: string[] = meta.Dimensions[0];
    const dimensions = Object.fromEntries(dimNames.map((d) => [d, emf[d]]));
    for (const m of meta.Metrics as { Name: string; Unit: string }[]) {
      const v = emf[m.Name];
      for (const value of Array.isArray(v) ? v : [v]) out.push({ name: m.Name, value, unit: m.Unit, dimensions });
    }
  }
  return out;
}
const named = (name: string, from = 0) => emitted(from).filter((m) => m.name === name);

describe('metrics (EMF)', () => {
  it('a bill counts one BillingRequests (type agreement) with service and stage dimensions', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 1000 } });
    const from = lines.length;
    const r = await bill(t, a.merchant, [a.agreementPhrase], 10);
    expect(r.status).toBe(201);
    expect(named('BillingRequests', from)).toEqual([
      { name: 'BillingRequests', value: 1, unit: 'Count', dimensions: { service: 'idpay', stage: 'sandbox', type: 'agreement' } },
    ]);
  });

  it('a refused billing counts Refusals by its code', async () => {
    const a = await agreement(t, { decision: 'approve_recurring', limits: { daily: 5 } });
    const from = lines.length;
    const r = await bill(t, a.merchant, [a.agreementPhrase], 50);
    expect(r.body.data?.[0]?.success ?? r.body[0]?.success).not.toBe(true);
    expect(named('Refusals', from).map((m) => m.dimensions.code)).toEqual(['limits']);
  });

  it('a repeated Idempotency-Key counts one IdempotentReplays', async () => {
    const p = await payee(t);
    const body = { lookupPhrases: [p.lookupPhrase], amount: 5, currency: 'NGN', description: 'Once' };
    const headers = { 'Idempotency-Key': `idem-${Date.now()}` };
    const first = await t.call('POST', '/v1/customer/pay', { key: p.merchant.apiKey, body, headers });
    const from = lines.length;
    const again = await t.call('POST', '/v1/customer/pay', { key: p.merchant.apiKey, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.status).toBe(again.status);
    expect(named('IdempotentReplays', from).map((m) => m.value)).toEqual([1]);
    expect(named('BillingRequests', from)).toEqual([]);
  });

  it('a 429 counts one Throttles', async () => {
    const m = await t.participant('merchant');
    const from = lines.length;
    // Calls until the first 429. The limit counts per minute window: 81 calls reach it even when a
    // minute's edge cuts the burst in two (at most 40 in the first window, then 41 in the next).
    const answers: number[] = [];
    while (answers.length < 81 && answers.at(-1) !== 429) {
      answers.push((await t.call('GET', '/v1/balance/details', { key: m.apiKey })).status);
    }
    const throttled = answers.filter((s) => s === 429).length;
    expect(throttled).toBe(1);
    expect(named('Throttles', from).length).toBe(throttled);
  });

  it('a tick reports its lag as TickLagSeconds (the metric lib/alarms.ts alarms on)', async () => {
    const from = lines.length;
    await t.app.tick(new Date(Date.now() - 30_000));
    const lag = named('TickLagSeconds', from);
    expect(lag).toHaveLength(1);
    expect(lag[0]!.unit).toBe('Seconds');
    expect(lag[0]!.dimensions).toEqual({ service: 'idpay', stage: 'sandbox' });
    expect(lag[0]!.value).toBeGreaterThanOrEqual(30);
    expect(lag[0]!.value).toBeLessThan(90);
  });

  it('a webhook delivery counts WebhookAttempts and WebhookLatency; a failing receiver WebhookFailures', async () => {
    const m = await t.participant('merchant');
    const from = lines.length;
    // Nothing listens on port 9 (discard): the attempt fails at once.
    const ep = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url: 'http://127.0.0.1:9/hook' } });
    expect(ep.status).toBe(201);
    const test = await t.call('POST', `/v1/webhooks/endpoints/${ep.body.data.id}/test`, { key: m.apiKey });
    expect(test.status).toBe(202);
    const deadline = Date.now() + 20_000;
    while (named('WebhookAttempts', from).length === 0 && Date.now() < deadline) await sleep(200);
    expect(named('WebhookAttempts', from).length).toBeGreaterThanOrEqual(1);
    expect(named('WebhookFailures', from).length).toBeGreaterThanOrEqual(1);
    const latency = named('WebhookLatency', from);
    expect(latency.length).toBeGreaterThanOrEqual(1);
    expect(latency[0]!.unit).toBe('Milliseconds');
  });
});

describe('logs', () => {
  it('each request logs one JSON line with its X-Request-Id, route and status, also for concurrent requests', async () => {
    const m = await t.participant('merchant');
    const saved = { level: process.env.LOG_LEVEL, log: console.log };
    const out: string[] = [];
    console.log = (...args: unknown[]) => void out.push(args.map(String).join(' '));
    logger.setLogLevel('INFO');
    try {
      const ids = Array.from({ length: 6 }, (_, i) => `corr-${Date.now()}-${i}`);
      await Promise.all(ids.map((id) => t.call('GET', '/v1/balance/details', { key: m.apiKey, headers: { 'X-Request-Id': id } })));
      const requestLines = out.map((l) => JSON.parse(l)).filter((e) => e.message === 'request' && ids.includes(e.requestId));
      expect(requestLines).toHaveLength(ids.length);
      for (const e of requestLines) {
        expect(e).toMatchObject({ level: 'INFO', service: 'idpay', route: 'GET /v1/balance/details', status: 200 });
        expect(typeof e.timestamp).toBe('string');
      }
    } finally {
      console.log = saved.log;
      process.env.LOG_LEVEL = saved.level;
    }
  });
});
