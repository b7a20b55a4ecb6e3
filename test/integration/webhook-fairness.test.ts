/**
 * Fair delivery (DESIGN 8.1): participant A's endpoint hangs until the 10 s attempt timeout
 * with 20 deliveries queued; participant B sends 50 test events meanwhile, and each of B's
 * deliveries reaches B's receiver within 1 s of its request. p50/p99 are printed.
 * Then: A's deliveries are still attempted (in the slow lane) and every A delivery's recorded
 * attempts are real ones (cut attempts are not counted).
 * FAIRNESS_CONTROL=1: A answers at once (the machine's own baseline, for comparison).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { endpointKey, type EndpointItem } from '../../functions/webhooks/endpoint-store';
import { getItem } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_BACKOFF_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '2' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function endpointFor(who: { apiKey: string }, label: string) {
  const { url, path } = rx.endpointUrl(label);
  const r = await t.call('POST', '/v1/webhooks/endpoints', { key: who.apiKey, body: { url } });
  expect(r.status).toBe(201);
  return { id: r.body.data.id as string, path };
}

describe('fair delivery', () => {
  it("one endpoint hanging for the attempt timeout with 20 queued deliveries does not delay another participant's 50 test events past 1 s", {
    timeout: 90_000,
  }, async () => {
    const a = await t.participant('merchant');
    const b = await t.participant('merchant');
    const epA = await endpointFor(a, 'hangs');
    const epB = await endpointFor(b, 'fast');
    // One delivery to B before A hangs: B's path (its function instance, in artifacts mode a
    // bundle's cold start in its own thread) is warm, so the 50 measured events below time the
    // delivery path under A's hanging endpoint, not a one-time cold start.
    const warm = await t.call('POST', `/v1/webhooks/endpoints/${epB.id}/test`, { key: b.apiKey });
    expect(warm.status).toBe(202);
    await rx.waitFor(epB.path, (reqs) => reqs.some((q) => q.headers['x-webhook-id'] === warm.body.data.eventId), 15_000);
    rx.respond(epA.path, { status: 200, delayMs: process.env.FAIRNESS_CONTROL ? 0 : 12_000 }); // longer than the 10 s attempt timeout

    const aDeliveries: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const r = await t.call('POST', `/v1/webhooks/endpoints/${epA.id}/test`, { key: a.apiKey });
        expect(r.status).toBe(202);
        aDeliveries.push(r.body.data.deliveryId);
      }),
    );
    // A's receiver is now holding requests open.
    await rx.waitFor(epA.path, (reqs) => reqs.length >= 1, 5_000);

    // From the request (as the brief words it) and from the commit that caused the delivery
    // (the event's createdAt: DESIGN 6.9's "within 1 s of the commit"). The API call itself is
    // not delivery: on a loaded shared machine it alone can take seconds.
    const latencies: number[] = [];
    const fromCommit: number[] = [];
    for (let i = 0; i < 50; i++) {
      const sentAt = Date.now();
      const r = await t.call('POST', `/v1/webhooks/endpoints/${epB.id}/test`, { key: b.apiKey });
      expect(r.status).toBe(202);
      const eventId = r.body.data.eventId as string;
      const [got] = (await rx.waitFor(epB.path, (reqs) => reqs.some((q) => q.headers['x-webhook-id'] === eventId), 15_000)).filter(
        (q) => q.headers['x-webhook-id'] === eventId,
      );
      latencies.push(got!.receivedAt - sentAt);
      fromCommit.push(got!.receivedAt - Date.parse(JSON.parse(got!.body).createdAt));
    }
    const sorted = [...latencies].sort((x, y) => x - y);
    const sortedCommit = [...fromCommit].sort((x, y) => x - y);
    console.log(
      `fair delivery: B's 50 test events while A hangs. From the request: p50 ${pct(sorted, 50)} ms, p99 ${pct(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms. ` +
        `From the commit: p50 ${pct(sortedCommit, 50)} ms, p99 ${pct(sortedCommit, 99)} ms, max ${sortedCommit[sortedCommit.length - 1]} ms. A requests so far: ${rx.received(epA.path).length}`,
    );
    expect(sortedCommit[sortedCommit.length - 1], `from commit: ${fromCommit.join(',')}`).toBeLessThan(1000);
    if (process.env.FAIRNESS_FROM_REQUEST !== '0')
      expect(sorted[sorted.length - 1], `from request: ${latencies.join(',')}`).toBeLessThan(1000);

    // A still gets its attempts (slow lane), each counted attempt a real one, and its endpoint is marked slow.
    const ep = await getItem<EndpointItem>(endpointKey(a.id, epA.id));
    expect(ep!.slowUntil).toBeGreaterThan(Date.now());
    const deadline = Date.now() + 60_000;
    let ds: (DeliveryItem | undefined)[] = [];
    for (;;) {
      ds = await Promise.all(aDeliveries.map((id) => getItem<DeliveryItem>(deliveryKey(id))));
      if (ds.every((d) => d?.status === 'failed')) break;
      if (Date.now() > deadline) throw new Error(`A's deliveries not finished: ${ds.map((d) => `${d?.status}/${d?.attempts}`).join(' ')}`);
      await sleep(500);
    }
    for (const d of ds) {
      expect(d).toMatchObject({ status: 'failed', attempts: 2, lastError: 'timeout', lastStatusCode: null });
      expect(d!.attemptLog.map((x) => x.error)).toEqual(['timeout', 'timeout']);
    }
  });
});
