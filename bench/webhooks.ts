/**
 * Benchmark (not part of npm test): 1,000 events through the outbox to a local receiver that
 * fails 30 % of requests at random, on the whole local stack (DynamoDB Local, fauxqs, the
 * SQS pollers invoking the delivery worker, the 1 s scheduler tick).
 *
 *   npx tsx bench/webhooks.ts       → prints figures, writes bench/results-webhooks.json
 *
 * Asserts: every (event, subscribed endpoint) pair delivered (one 2xx), no request to an
 * endpoint that should not receive that event, no second 2xx for a pair (duplicates only as
 * retries of the same id after a failure), every signature valid, the X-Webhook-Id equal to
 * the body's id, and every delivery record `delivered` with `attempts` = requests received.
 *
 * BENCH_EVENTS (1000), BENCH_FAIL_RATE (0.3), BENCH_CONCURRENCY (16 commits in flight),
 * BENCH_TIMEOUT_S (600) change the run. Backoff base 1 s, 12 attempts.
 */
import { cpus, loadavg } from 'node:os';
import type { DeliveryItem } from '../functions/webhooks/delivery-store';
import type { EventSpec } from '../functions/events/outbox';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalApp } from '../local/app';
import { startPollers, type Poller } from '../local/pollers';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/services';
import { startReceiver, type ReceivedRequest, type Receiver } from '../local/receiver';
import { outPath, writeJson } from './lib/results';
import { startBenchStack, type BenchStack } from './lib/stack';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const FAIL_RATE = Number(process.env.BENCH_FAIL_RATE ?? 0.3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;
/** SQS poller sets per queue: 1 = what `npm start` runs; more ~ Lambda's concurrent batches. */
const POLLERS = Number(process.env.BENCH_POLLERS ?? 1);
const OUT = outPath('results-webhooks.json');

interface Party {
  id: string;
  apiKey: string;
  type: 'bank' | 'merchant' | 'provider';
  providerId?: string;
}
interface Ep {
  id: string;
  ownerId: string;
  events: string[];
  secret: string;
  path: string;
}

async function api(app: LocalApp, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function main() {
  // Quiet handlers: set before the service modules load (a logger may read it at import).
  process.env.LOG_LEVEL = 'SILENT';
  const { deliveryIdFor, deliveryKey } = await import('../functions/webhooks/delivery-store');
  const { commit } = await import('../functions/events/outbox');
  const { verifySignature } = await import('../functions/webhooks/signing');
  const { subscribes } = await import('../functions/events/types');
  const { batchGet } = await import('../functions/platform/table');
  let stack: BenchStack | undefined;
  let app: LocalApp | undefined;
  let rx: Receiver | undefined;
  const extraPollers: Poller[] = [];
  const loadAtStart = loadavg()[0]!;
  const pollerClients: SQSClient[] = [];
  try {
    stack = await startBenchStack({
      tickMs: 1000,
      env: { WEBHOOK_BACKOFF_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '12', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    app = stack.app;
    const sqs = { endpoint: stack.sqsEndpoint };
    const operatorKey = stack.operatorKey;
    const suffix = stack.run;

    for (let i = 1; i < POLLERS; i++) {
      const client = new SQSClient({ endpoint: sqs.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
      pollerClients.push(client);
      extraPollers.push(startPollers(client, app.env));
    }

    // The receiver fails FAIL_RATE of requests at random (500), answers 200 otherwise.
    let injected = 0;
    rx = await startReceiver();
    const failing = () => {
      if (Math.random() < FAIL_RATE) {
        injected++;
        return { status: 500 };
      }
      return { status: 200 };
    };

    // Participants: banks, providers, merchants (some under a provider).
    const parties: Party[] = [];
    const create = async (type: Party['type'], providerId?: string) => {
      const d = await api(app!, operatorKey, 'POST', '/v1/operator/participants', {
        type,
        name: `${type} ${parties.length}`,
        email: `${type}${parties.length}-${suffix}@example.com`,
        ...(providerId ? { providerId } : {}),
      });
      const p: Party = { id: d.id, apiKey: d.apiKey, type, providerId };
      parties.push(p);
      return p;
    };
    const banks = [await create('bank'), await create('bank')];
    const providers = [await create('provider'), await create('provider')];
    const merchants = [
      await create('merchant', providers[0]!.id),
      await create('merchant', providers[0]!.id),
      await create('merchant', providers[1]!.id),
      await create('merchant'),
      await create('merchant'),
    ];

    // Endpoints: one catch-all per participant, plus narrower ones that must receive only their types.
    const endpoints: Ep[] = [];
    const addEndpoint = async (owner: Party, events?: string[]) => {
      const { url, path } = rx!.endpointUrl(owner.type);
      rx!.respond(path, failing);
      const d = await api(app!, owner.apiKey, 'POST', '/v1/webhooks/endpoints', events ? { url, events } : { url });
      endpoints.push({ id: d.id, ownerId: owner.id, events: d.events, secret: d.secret, path });
    };
    for (const p of parties) await addEndpoint(p);
    await addEndpoint(merchants[0]!, ['refund.updated']); // never receives billing events
    await addEndpoint(merchants[1]!, ['billing.response']);
    await addEndpoint(banks[0]!, ['billing.request']);
    await addEndpoint(banks[1]!, ['billing.intent']); // never receives billing.request

    // Expected receivers of an event: `to`'s subscribed endpoints, plus its provider's.
    const expectedFor = (e: EventSpec) => {
      const to = parties.find((p) => p.id === e.to)!;
      const owners = new Set([to.id, ...(to.providerId ? [to.providerId] : [])]);
      return endpoints.filter((ep) => owners.has(ep.ownerId) && subscribes(ep.events, e.type));
    };

    const specs: EventSpec[] = Array.from({ length: EVENTS }, (_, i) => {
      const toBank = i % 4 === 0;
      const to = toBank ? banks[i % banks.length]! : merchants[i % merchants.length]!;
      return {
        type: toBank ? 'billing.request' : 'billing.response',
        to: to.id,
        data: { n: i, reference: `BENCH-${suffix}-${i}`, amount: 1500.5, currency: 'NGN' },
      };
    });

    console.error(`bench: ${EVENTS} events, ${endpoints.length} endpoints, receiver failing ${FAIL_RATE * 100}% at random`);
    const expected = new Map<string, Ep[]>(); // eventId -> endpoints
    const createdAt = new Map<string, number>();
    const t0 = Date.now();
    let next = 0;
    let commitMs = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < specs.length) {
          const spec = specs[next++]!;
          const [ev] = await commit([], [spec]);
          // Its deliveries are made from the table's stream after the commit (events/fanout.ts).
          expected.set(ev!.id, expectedFor(spec));
          createdAt.set(ev!.id, Date.parse(ev!.createdAt));
        }
      }),
    );
    commitMs = Date.now() - t0;
    const pairs = [...expected.values()].reduce((n, eps) => n + eps.length, 0);
    console.error(`bench: committed ${EVENTS} events (${pairs} deliveries) in ${commitMs} ms`);

    // Wait until every (event, endpoint) pair has a 2xx.
    const okPairs = () => new Set(rx!.requests.filter((r) => r.status < 300).map((r) => `${r.headers['x-webhook-id']}|${r.path}`));
    let lastLog = 0;
    for (;;) {
      const done = okPairs().size;
      if (done >= pairs) break;
      if (Date.now() - t0 > TIMEOUT_MS) throw new Error(`timeout: ${done}/${pairs} deliveries after ${TIMEOUT_MS} ms`);
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        console.error(`bench: ${done}/${pairs} delivered, ${rx.requests.length} requests so far`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const deliveredMs = Date.now() - t0;
    const lastOk = Math.max(...rx.requests.filter((r) => r.status < 300).map((r) => r.receivedAt));
    await new Promise((r) => setTimeout(r, 3000)); // anything late would show up now
    await app.settle(30_000);

    // Checks.
    const problems: string[] = [];
    const byPair = new Map<string, ReceivedRequest[]>();
    const epByPath = new Map(endpoints.map((e) => [e.path, e]));
    for (const r of rx.requests) {
      const id = r.headers['x-webhook-id']!;
      const ep = epByPath.get(r.path);
      const exp = expected.get(id);
      if (!ep || !exp) {
        problems.push(`request for unknown event/endpoint ${id} ${r.path}`);
        continue;
      }
      if (!exp.some((e) => e.path === r.path)) problems.push(`event ${id} delivered to the wrong endpoint ${ep.id}`);
      let body: { id?: string } = {};
      try {
        body = JSON.parse(r.body);
      } catch {
        problems.push(`unparseable body for ${id}`);
      }
      if (body.id !== id) problems.push(`X-Webhook-Id ${id} != body id ${body.id}`);
      if (!verifySignature(r.headers['x-webhook-signature'], r.body, ep.secret)) problems.push(`bad signature for ${id} at ${ep.id}`);
      const key = `${id}|${r.path}`;
      byPair.set(key, [...(byPair.get(key) ?? []), r]);
    }
    let duplicates = 0; // a request after the pair's first 2xx
    let maxAttempts = 0;
    const latencies: number[] = [];
    const firstLatencies: number[] = [];
    let lastFirstAttempt = 0;
    for (const [key, reqs] of byPair) {
      firstLatencies.push(reqs[0]!.receivedAt - createdAt.get(key.split('|')[0]!)!);
      lastFirstAttempt = Math.max(lastFirstAttempt, reqs[0]!.receivedAt);
      const firstOk = reqs.findIndex((r) => r.status < 300);
      if (firstOk === -1) problems.push(`${key} never delivered`);
      else {
        duplicates += reqs.length - firstOk - 1;
        latencies.push(reqs[firstOk]!.receivedAt - createdAt.get(key.split('|')[0]!)!);
      }
      if (new Set(reqs.map((r) => r.body)).size !== 1) problems.push(`${key}: bodies differ between attempts`);
      maxAttempts = Math.max(maxAttempts, reqs.length);
    }
    if (byPair.size !== pairs) problems.push(`${byPair.size} (event, endpoint) pairs received, expected ${pairs}`);
    if (duplicates) problems.push(`${duplicates} duplicate deliveries after a 2xx`);

    // The delivery records agree with what the receiver saw: one per (event, endpoint).
    const ids = [...expected].flatMap(([eventId, eps]) => eps.map((ep) => deliveryIdFor(eventId, ep.id)));
    const records = [...(await batchGet<DeliveryItem>(ids.map(deliveryKey))).values()];
    const recordedAttempts = records.reduce((n, d) => n + d.attempts, 0);
    const notDelivered = records.filter((d) => d.status !== 'delivered').length;
    if (records.length !== pairs) problems.push(`${records.length} delivery records, expected ${pairs}`);
    if (notDelivered) problems.push(`${notDelivered} delivery records not delivered`);
    if (recordedAttempts !== rx.requests.length)
      problems.push(`records count ${recordedAttempts} attempts, receiver saw ${rx.requests.length}`);

    const attemptsHistogram: Record<string, number> = {};
    for (const reqs of byPair.values()) attemptsHistogram[reqs.length] = (attemptsHistogram[reqs.length] ?? 0) + 1;
    const seconds = (lastOk - t0) / 1000;
    const result = {
      benchmark: 'webhooks: 1,000 events through the outbox to a local receiver failing 30 % at random',
      recordedAt: new Date().toISOString(),
      node: process.version,
      machine: {
        cpus: cpus().length,
        loadAverage1mAtStart: Math.round(loadAtStart * 10) / 10,
        loadAverage1mAtEnd: Math.round(loadavg()[0]! * 10) / 10,
      },
      config: {
        events: EVENTS,
        failRate: FAIL_RATE,
        commitConcurrency: CONCURRENCY,
        pollersPerQueue: POLLERS,
        backoffBaseSeconds: 1,
        maxAttempts: 12,
        endpoints: endpoints.length,
      },
      events: EVENTS,
      deliveries: pairs,
      commitPhaseMs: commitMs,
      commitsPerSecond: Math.round((EVENTS / commitMs) * 1000),
      // includes the backoff of the unluckiest deliveries (1+2+4+8+16+32 s for 7 attempts)
      allDeliveredMs: lastOk - t0,
      observedDoneMs: deliveredMs,
      deliveriesPerSecond: Math.round((pairs / seconds) * 10) / 10,
      requests: rx.requests.length,
      injectedFailures: injected,
      observedFailureRate: Math.round((injected / rx.requests.length) * 1000) / 1000,
      attemptsPerDelivery: { mean: Math.round((rx.requests.length / pairs) * 100) / 100, max: maxAttempts, histogram: attemptsHistogram },
      allFirstAttemptsMadeMs: lastFirstAttempt - t0,
      firstAttemptsPerSecond: Math.round((pairs / ((lastFirstAttempt - t0) / 1000)) * 10) / 10,
      attemptsPerSecond: Math.round((rx.requests.length / seconds) * 10) / 10,
      latencyToFirstAttemptMs: {
        p50: percentile(firstLatencies, 50),
        p95: percentile(firstLatencies, 95),
        p99: percentile(firstLatencies, 99),
        max: percentile(firstLatencies, 100),
      },
      latencyToDeliveredMs: {
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        p99: percentile(latencies, 99),
        max: percentile(latencies, 100),
      },
      duplicatesAfterSuccess: duplicates,
      wrongEndpoint: problems.filter((p) => p.includes('wrong endpoint')).length,
      problems: problems.slice(0, 20),
      ok: problems.length === 0,
    };
    writeJson(OUT, result);
    console.log(JSON.stringify(result, null, 2));
    if (!result.ok) {
      console.error(`bench FAILED: ${problems.length} problem(s)`);
      process.exitCode = 1;
    } else {
      console.error(
        `bench OK: ${EVENTS} events, ${pairs} deliveries in ${seconds.toFixed(1)} s (${result.deliveriesPerSecond}/s), ${rx.requests.length} requests`,
      );
    }
  } finally {
    await Promise.allSettled(extraPollers.map((p) => p.stop()));
    for (const c of pollerClients) c.destroy();
    await rx?.close().catch(() => undefined);
    await stack?.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
