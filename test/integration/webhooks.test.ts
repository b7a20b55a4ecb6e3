/**
 * Webhooks end to end: endpoints API, the outbox, the delivery worker against a
 * real HTTP receiver on 127.0.0.1, backoff, DLQ, replay (API and ops), recovery by the tick.
 * Backoff is shrunk (base 1 s, 3 attempts) so the whole file runs in seconds.
 */
import { API_VERSION } from '../../functions/platform/api-request';
import { GetQueueAttributesCommand, PurgeQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands as opsCommands, deliveriesList, dlqReplay } from '../../ops/commands/dlq';
import { deliveryKey, eventKey, messageFor, overdueAt, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { claimAttempt } from '../../functions/webhooks/delivery-transition-store';
import { endpointKey, type EndpointItem } from '../../functions/webhooks/endpoint-store';
import { commit, OutboxTooLargeError } from '../../functions/events/outbox';
import { billingResponse } from '../support/event-data';
import { sign, signStandard, verifySignature } from '../../functions/webhooks/signing';
import { getItem, table } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';
import { injectFaults } from '../support/faults';

let t: TestApp;
let rx: Receiver;
let sqs: SQSClient;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_BACKOFF_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '3' });
  rx = await startReceiver();
  sqs = new SQSClient({
    endpoint: t.app.env.AWS_ENDPOINT_URL_SQS,
    region: t.app.env.AWS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
});
afterAll(async () => {
  sqs?.destroy();
  await rx?.close();
  await t?.stop();
});

type Who = { id: string; apiKey: string };

async function createEndpoint(who: Who, opts: { events?: string[]; label?: string; headers?: Record<string, string> } = {}) {
  const { url, path } = rx.endpointUrl(opts.label);
  const r = await t.call('POST', '/v1/webhooks/endpoints', {
    key: who.apiKey,
    headers: opts.headers,
    body: opts.events ? { url, events: opts.events } : { url },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id as string, secret: r.body.data.secret as string, url, path, body: r.body };
}

async function sendTest(who: Who, endpointId: string, headers?: Record<string, string>) {
  const r = await t.call('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key: who.apiKey, headers });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.data as { eventId: string; deliveryId: string };
}

/**
 * A test event whose message is never sent: SQS unreachable for the outbox's enqueue, so the
 * commit succeeds and no message leaves (the same state as a process dying right after the commit).
 */
async function sendTestUnsent(who: Who, endpointId: string) {
  const real = t.app.env.QUEUE_URL_WEBHOOKS!;
  await t.app.updateEnvironment({ QUEUE_URL_WEBHOOKS: `${real}-unreachable` });
  try {
    return await sendTest(who, endpointId);
  } finally {
    await t.app.updateEnvironment({ QUEUE_URL_WEBHOOKS: real });
  }
}

const delivery = (id: string) => getItem<DeliveryItem>(deliveryKey(id));
/** How long a queue count may take to reach what the test waits for (the SQS emulator on a loaded machine). */
const QUEUE_WAIT_MS = 60_000;

/** Messages in the webhooks queue: visible, in flight and delayed (a retry waiting its turn). */
async function queued(): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return (
    Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(out.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/**
 * Nothing more can be sent: the queue holds no message (a retry would be a delayed one, and is
 * POSTed before its message is deleted) and the stack has settled. Instead of waiting seconds
 * to see that nothing comes.
 */
async function drained(): Promise<void> {
  await expect.poll(queued, { timeout: QUEUE_WAIT_MS, interval: 100 }).toBe(0);
  await t.app.settle();
}

async function waitForDelivery(id: string, pred: (d: DeliveryItem) => boolean, timeoutMs = 20_000): Promise<DeliveryItem> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await delivery(id);
    if (d && pred(d)) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${id} not in the expected state: ${JSON.stringify(d)}`);
    await sleep(50);
  }
}

async function dlqMessages(): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS_DLQ,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

describe('endpoints API', () => {
  it('creates an endpoint: secret shown once, events default to *, stored encrypted', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    expect(ep.body).toMatchObject({ statusCode: 201, success: true, message: 'Webhook endpoint created' });
    expect(ep.body.data).toMatchObject({ id: ep.id, url: ep.url, events: ['*'], status: 'enabled' });
    expect(ep.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);

    const stored = await getItem<EndpointItem>(endpointKey(m.id, ep.id));
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(ep.secret);

    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.endpoints[0]).toMatchObject({ id: ep.id, url: ep.url, events: ['*'], status: 'enabled' });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect(list.body.data.endpoints[0]).not.toHaveProperty('secret');
  });

  it('keeps the subscribed events (deduplicated) and deletes an endpoint', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m, { events: ['billing.response', 'billing.response', 'refund.updated'] });
    expect(ep.body.data.events).toEqual(['billing.response', 'refund.updated']);
    const del = await t.call('DELETE', `/v1/webhooks/endpoints/${ep.id}`, { key: m.apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ success: true, message: 'Webhook endpoint deleted', data: { id: ep.id, deleted: true } });
    const again = await t.call('DELETE', `/v1/webhooks/endpoints/${ep.id}`, { key: m.apiKey });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({
      statusCode: 404,
      success: false,
      message: 'Webhook endpoint not found',
      code: 'webhook_endpoint_not_found',
    });
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.body.data).toEqual({ endpoints: [], total: 0, hasMore: false });
  });

  it('refuses bad input with 400 Invalid request parameters and writes nothing', async () => {
    const b = await t.participant('bank');
    const cases: [unknown, string][] = [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://127.0.0.1/hook' }, 'url'],
      [{ url: 'file:///etc/passwd' }, 'url'],
      [{ url: 'http://user:pass@127.0.0.1/hook' }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ url: 'http://0.0.0.0:8080/' }, 'url'],
      [{ url: `http://127.0.0.1/${'a'.repeat(2100)}` }, 'url'],
      [{ url: 'http://127.0.0.1/hook', events: ['billing.unknown'] }, 'events.0'],
      [{ url: 'http://127.0.0.1/hook', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1/hook', events: 'billing.response' }, 'events'],
      [{ url: 'http://127.0.0.1/hook', extra: true }, '(root)'],
      [{}, 'url'],
    ];
    for (const [body, path] of cases) {
      const r = await t.call('POST', '/v1/webhooks/endpoints', { key: b.apiKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        success: false,
        message: 'Invalid request parameters',
        code: 'invalid_request_parameters',
      });
      expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const bad = await t.call('POST', '/v1/webhooks/endpoints', { key: b.apiKey, rawBody: '{"url":' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid JSON body');
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: b.apiKey });
    expect(list.body.data).toEqual({ endpoints: [], total: 0, hasMore: false });
  });

  it('caps endpoints per participant at 10 (409) and counts deletions', async () => {
    const p = await t.participant('provider');
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createEndpoint(p)).id);
    const over = await t.call('POST', '/v1/webhooks/endpoints', { key: p.apiKey, body: { url: rx.endpointUrl().url } });
    expect(over.status).toBe(409);
    expect(over.body.message).toBe('Webhook endpoint limit reached');
    expect((await t.call('DELETE', `/v1/webhooks/endpoints/${ids[0]}`, { key: p.apiKey })).status).toBe(200);
    await createEndpoint(p);
    expect((await t.call('GET', '/v1/webhooks/endpoints', { key: p.apiKey })).body.data.total).toBe(10);
  });

  it('lets a provider manage its merchant’s endpoints with X-Entity-Id, separate from its own', async () => {
    const p = await t.participant('provider');
    const m = await t.participant('merchant', { providerId: p.id });
    const forMerchant = await createEndpoint(p, { headers: { 'x-entity-id': m.id } });
    const own = await createEndpoint(p);
    const merchantList = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(merchantList.body.data.endpoints.map((e: { id: string }) => e.id)).toEqual([forMerchant.id]);
    const viaProvider = await t.call('GET', '/v1/webhooks/endpoints', { key: p.apiKey, headers: { 'x-entity-id': m.id } });
    expect(viaProvider.body.data.endpoints.map((e: { id: string }) => e.id)).toEqual([forMerchant.id]);
    const providerList = await t.call('GET', '/v1/webhooks/endpoints', { key: p.apiKey });
    expect(providerList.body.data.endpoints.map((e: { id: string }) => e.id)).toEqual([own.id]);
    // another provider cannot act for this merchant
    const other = await t.participant('provider');
    const foreign = await t.call('GET', '/v1/webhooks/endpoints', { key: other.apiKey, headers: { 'x-entity-id': m.id } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Merchant not found');
  });
});

describe('delivery', () => {
  it('POSTs the signed event: body {id,type,createdAt,apiVersion,livemode,data}, X-Webhook-Id/Timestamp/Signature', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const before = Math.floor(Date.now() / 1000);
    const sent = await sendTest(m, ep.id);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req!.body);
    expect(Object.keys(body).sort()).toEqual(['apiVersion', 'createdAt', 'data', 'id', 'livemode', 'type']);
    expect(body).toMatchObject({ apiVersion: API_VERSION, livemode: false });
    expect(body).toMatchObject({ id: sent.eventId, type: 'webhook.test', data: { endpointId: ep.id } });
    expect(req!.headers['x-webhook-id']).toBe(sent.eventId);
    const ts = Number(req!.headers['x-webhook-timestamp']);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // exactly one lowercase hex HMAC-SHA256 of the raw body with the endpoint secret
    expect(req!.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(req!.headers['x-webhook-signature']).toBe(sign(ep.secret, req!.body));
    expect(verifySignature(req!.headers['x-webhook-signature'], req!.body, ep.secret)).toBe(true);
    expect(verifySignature(req!.headers['x-webhook-signature'], req!.body, 'whsec_wrong')).toBe(false);

    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d).toMatchObject({ attempts: 1, lastStatusCode: 200, eventId: sent.eventId, endpointId: ep.id, ownerId: m.id });
    expect(d.duePk).toBeUndefined(); // off the due index
    const list = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(1);
    const shown = list.body.data.deliveries[0];
    expect(shown).toMatchObject({
      id: sent.deliveryId,
      eventId: sent.eventId,
      eventType: 'webhook.test',
      endpointId: ep.id,
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(typeof shown.lastAttemptAt).toBe('string');
    expect(typeof shown.createdAt).toBe('string');
    expect(shown.attemptHistory).toHaveLength(1);
  });

  it('retries with backoff: 500, 500, then 200 delivers on the third attempt with the same X-Webhook-Id', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 500 }, { status: 500 }]);
    const sent = await sendTest(m, ep.id);
    const reqs = await rx.waitFor(ep.path, (r) => r.length >= 3);
    expect(reqs.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.eventId]));
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1); // the same bytes every time
    for (const r of reqs) expect(verifySignature(r.headers['x-webhook-signature'], r.body, ep.secret)).toBe(true);
    // base 1 s doubling with +/-20 % jitter: ~1 s then ~2 s
    const gap1 = reqs[1]!.receivedAt - reqs[0]!.receivedAt;
    const gap2 = reqs[2]!.receivedAt - reqs[1]!.receivedAt;
    expect(gap1).toBeGreaterThanOrEqual(700);
    expect(gap2).toBeGreaterThanOrEqual(1400);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d.attempts).toBe(3);
    expect(d.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    await drained();
    expect(rx.received(ep.path)).toHaveLength(3); // nothing after success
  });

  it('honours Retry-After on 429 when longer than the backoff', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 429, headers: { 'Retry-After': '3' } }]);
    const sent = await sendTest(m, ep.id);
    const reqs = await rx.waitFor(ep.path, (r) => r.length >= 2);
    expect(reqs[1]!.receivedAt - reqs[0]!.receivedAt).toBeGreaterThanOrEqual(2_800);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d.attemptLog.map((a) => a.statusCode)).toEqual([429, 200]);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const target = rx.endpointUrl('redirect-target');
    rx.script(ep.path, [{ status: 302, headers: { Location: target.url } }]);
    const sent = await sendTest(m, ep.id);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d.attemptLog.map((a) => [a.statusCode, a.error])).toEqual([
      [302, 'redirect'],
      [200, null],
    ]);
    expect(rx.received(target.path)).toHaveLength(0);
  });

  it('a receiver that always fails: failed after WEBHOOK_MAX_ATTEMPTS, message in the DLQ; the replay API then delivers it', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 503 });
    const sent = await sendTest(m, ep.id);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed' && !x.dlqPending);
    expect(d.attempts).toBe(3);
    expect(d.lastStatusCode).toBe(503);
    expect(d.duePk).toBeUndefined();
    expect(rx.received(ep.path)).toHaveLength(3);
    await expect.poll(dlqMessages, { timeout: QUEUE_WAIT_MS }).toBeGreaterThanOrEqual(1);

    const failed = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query: { status: 'failed' } });
    expect(failed.body.data.total).toBe(1);
    expect(failed.body.data.deliveries[0]).toMatchObject({
      id: sent.deliveryId,
      status: 'failed',
      attempts: 3,
      lastStatusCode: 503,
      nextAttemptAt: null,
    });

    rx.respond(ep.path, { status: 200 });
    const replay = await t.call('POST', `/v1/webhooks/deliveries/${sent.deliveryId}/replay`, { key: m.apiKey });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({
      success: true,
      message: 'Delivery replay queued',
      data: { id: sent.deliveryId, eventId: sent.eventId, status: 'pending' },
    });
    const done = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(done.attempts).toBe(4);
    const reqs = rx.received(ep.path);
    expect(reqs.map((r) => r.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.eventId]));
  });

  it('dlq:replay moves DLQ messages back and the worker delivers them (one more attempt each)', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 500 });
    const sent = await sendTest(m, ep.id);
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed' && !x.dlqPending);
    await expect.poll(dlqMessages, { timeout: QUEUE_WAIT_MS }).toBeGreaterThanOrEqual(1);
    rx.respond(ep.path, { status: 200 });
    await opsCommands['dlq:replay']!([
      '--queue-url',
      t.app.env.QUEUE_URL_WEBHOOKS!,
      '--dlq-url',
      t.app.env.QUEUE_URL_WEBHOOKS_DLQ!,
      '--endpoint-url',
      t.app.env.AWS_ENDPOINT_URL_SQS!,
      '--region',
      t.app.env.AWS_REGION!,
    ]);
    const done = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(done.attempts).toBe(4);
    expect(rx.received(ep.path).map((r) => r.status)).toEqual([500, 500, 500, 200]);
    await expect.poll(dlqMessages, { timeout: QUEUE_WAIT_MS }).toBe(0);
    // nothing left to replay: a second run moves nothing
    const again = await dlqReplay([
      '--queue-url',
      t.app.env.QUEUE_URL_WEBHOOKS!,
      '--dlq-url',
      t.app.env.QUEUE_URL_WEBHOOKS_DLQ!,
      '--quiet',
    ]);
    expect(again).toEqual({ queue: 'webhooks', moved: 0, failed: 0, remaining: 0 });
  });

  it('deliveries:list --status failed lists failed deliveries from the table (ops)', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 500 });
    const sent = await sendTest(m, ep.id);
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed' && !x.dlqPending);
    const rows = await deliveriesList(['--status', 'failed', '--table', t.app.env.TABLE_NAME!, '--limit', '100', '--quiet']);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((r) => r.status === 'failed')).toBe(true);
    expect(rows.find((r) => r.id === sent.deliveryId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastStatusCode: 500,
      ownerId: m.id,
      endpointId: ep.id,
    });
    const own = await deliveriesList(['--owner', m.id, '--table', t.app.env.TABLE_NAME!, '--quiet']);
    expect(own.map((r) => r.id)).toEqual([sent.deliveryId]);
    await expect(deliveriesList(['--status', 'lost', '--table', 'x'])).rejects.toThrow(
      '--status must be one of pending, delivered, failed',
    );

    // dlq:replay against a receiver that still fails: one more attempt, back to the DLQ, and
    // the command ends (it moves only what was there when it started).
    await expect.poll(dlqMessages, { timeout: QUEUE_WAIT_MS }).toBe(1);
    const flagsFor = ['--queue-url', t.app.env.QUEUE_URL_WEBHOOKS!, '--dlq-url', t.app.env.QUEUE_URL_WEBHOOKS_DLQ!, '--quiet'];
    const first = await dlqReplay(flagsFor);
    expect(first.moved).toBe(1);
    const again = await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed' && x.attempts === 4 && !x.dlqPending);
    expect(again.lastStatusCode).toBe(500);
    await expect.poll(dlqMessages, { timeout: QUEUE_WAIT_MS }).toBe(1);
    expect(rx.received(ep.path)).toHaveLength(4);
  });

  it('a 410 disables the endpoint and stops its retries; new events skip it; a successful test re-enables it', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 410 }]);
    const sent = await sendTest(m, ep.id);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed');
    expect(d).toMatchObject({ attempts: 1, lastStatusCode: 410, lastError: 'endpoint_gone' });
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.body.data.endpoints[0]).toMatchObject({ id: ep.id, status: 'disabled', disabledReason: 'gone' });
    await drained();
    expect(rx.received(ep.path)).toHaveLength(1); // no retry
    // Disabled endpoints get no new deliveries (made from the stream: none for this event).
    const [none] = await commit([], [{ type: 'billing.response', to: m.id, data: billingResponse({ reference: 'x' }) }]);
    await t.app.settle();
    const seen = await t.call('GET', `/v1/events/${none!.id}`, { key: m.apiKey });
    expect(seen.status).toBe(200);
    expect(seen.body.data.deliveries).toEqual([]);
    expect(rx.received(ep.path)).toHaveLength(1);

    const again = await sendTest(m, ep.id);
    await waitForDelivery(again.deliveryId, (x) => x.status === 'delivered');
    const after = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(after.body.data.endpoints[0]).toMatchObject({ id: ep.id, status: 'enabled', disabledReason: null });
  });

  it('stops the deliveries of a deleted endpoint', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 500 }]);
    const sent = await sendTest(m, ep.id);
    await rx.waitFor(ep.path, (r) => r.length >= 1);
    expect((await t.call('DELETE', `/v1/webhooks/endpoints/${ep.id}`, { key: m.apiKey })).status).toBe(200);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'failed');
    expect(d).toMatchObject({ attempts: 1, lastError: 'endpoint_deleted' });
    expect(rx.received(ep.path)).toHaveLength(1);
    const replay = await t.call('POST', `/v1/webhooks/deliveries/${sent.deliveryId}/replay`, { key: m.apiKey });
    expect(replay.status).toBe(404);
    expect(replay.body.message).toBe('Webhook endpoint not found');
  });

  it('rotate-secret: both secrets sign webhook-signature during the overlap, the new one first; X-Webhook-Signature carries the new one only', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const rot = await t.call('POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { key: m.apiKey });
    expect(rot.status).toBe(200);
    expect(rot.body).toMatchObject({ success: true, message: 'Webhook secret rotated', data: { id: ep.id } });
    const newSecret = rot.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(ep.secret);
    const until = Date.parse(rot.body.data.previousSecretExpiresAt);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);

    await sendTest(m, ep.id);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    // One hex value, the new secret's (DESIGN 6.6, 10.3); Standard Webhooks carries both.
    expect(req!.headers['x-webhook-signature']).toBe(sign(newSecret, req!.body));
    expect(verifySignature(req!.headers['x-webhook-signature'], req!.body, newSecret)).toBe(true);
    expect(verifySignature(req!.headers['x-webhook-signature'], req!.body, ep.secret)).toBe(false);
    const ts = req!.headers['webhook-timestamp']!;
    const id = req!.headers['webhook-id']!;
    expect(req!.headers['webhook-signature']!.split(' ')).toEqual([
      signStandard(newSecret, id, ts, req!.body),
      signStandard(ep.secret, id, ts, req!.body),
    ]);
    const list = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(list.body.data.endpoints[0].previousSecretExpiresAt).toBe(rot.body.data.previousSecretExpiresAt);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    // rotating again drops the oldest secret
    const rot2 = await t.call('POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { key: m.apiKey });
    await sendTest(m, ep.id);
    const reqs = await rx.waitFor(ep.path, (r) => r.length >= 2);
    const last = reqs[1]!;
    expect(last.headers['x-webhook-signature']).toBe(sign(rot2.body.data.secret, last.body));
    expect(last.headers['webhook-signature']!.split(' ')).toEqual([
      signStandard(rot2.body.data.secret, last.headers['webhook-id']!, last.headers['webhook-timestamp']!, last.body),
      signStandard(newSecret, last.headers['webhook-id']!, last.headers['webhook-timestamp']!, last.body),
    ]);
    expect(verifySignature(last.headers['x-webhook-signature'], last.body, ep.secret)).toBe(false);
  });
});

describe('ownership', () => {
  it('another participant cannot list, replay, delete, rotate or test your webhooks (404)', async () => {
    const m = await t.participant('merchant');
    const other = await t.participant('bank');
    const ep = await createEndpoint(m);
    const sent = await sendTest(m, ep.id);
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');

    const list = await t.call('GET', '/v1/webhooks/deliveries', { key: other.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ deliveries: [], total: 0, hasMore: false });
    const replay = await t.call('POST', `/v1/webhooks/deliveries/${sent.deliveryId}/replay`, { key: other.apiKey });
    expect(replay.status).toBe(404);
    expect(replay.body).toMatchObject({ statusCode: 404, success: false, message: 'Delivery not found' });
    for (const [method, path] of [
      ['DELETE', `/v1/webhooks/endpoints/${ep.id}`],
      ['POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`],
      ['POST', `/v1/webhooks/endpoints/${ep.id}/test`],
    ] as const) {
      const r = await t.call(method, path, { key: other.apiKey });
      expect(r.status, path).toBe(404);
      expect(r.body.message).toBe('Webhook endpoint not found');
    }
    expect((await t.call('GET', '/v1/webhooks/endpoints', { key: other.apiKey })).body.data.total).toBe(0);
    // unknown ids
    expect((await t.call('POST', '/v1/webhooks/deliveries/dlv_nope/replay', { key: m.apiKey })).body.message).toBe('Delivery not found');
    expect((await t.call('POST', '/v1/webhooks/deliveries/whatever/replay', { key: m.apiKey })).status).toBe(404);
    // the owner's endpoint and delivery are untouched
    expect((await delivery(sent.deliveryId))!.replays).toBeUndefined();
    expect((await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey })).body.data.total).toBe(1);
  });

  it('lists deliveries with status/type filters and paging; bad queries are 400 Invalid query parameters', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sendTest(m, ep.id)).deliveryId);
    for (const id of ids) await waitForDelivery(id, (x) => x.status === 'delivered');
    const all = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query: { type: 'webhook.test', status: 'delivered' } });
    expect(all.body.data.total).toBe(3);
    expect(all.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([...ids].reverse()); // newest first
    const page = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query: { limit: 1, skip: 1 } });
    expect(page.body.data.total).toBe(3);
    expect(page.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
    expect((await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query: { status: 'failed' } })).body.data.total).toBe(0);
    const bad: Record<string, string | number>[] = [{ status: 'lost' }, { type: 'nope.event' }, { limit: 101 }, { limit: 0 }, { skip: -1 }];
    for (const query of bad) {
      const r = await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey, query });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
    }
  });
});

describe('outbox', () => {
  it('delivers a merchant’s event to the merchant and its provider, per subscription, with one event id', async () => {
    const p = await t.participant('provider');
    const m = await t.participant('merchant', { providerId: p.id });
    const mAll = await createEndpoint(m);
    const mBilling = await createEndpoint(m, { events: ['billing.response'] });
    const mRefunds = await createEndpoint(m, { events: ['refund.updated'] });
    const pAll = await createEndpoint(p);
    const otherMerchant = await t.participant('merchant');
    const stranger = await createEndpoint(otherMerchant);

    const data = billingResponse({ reference: 'REF-1', status: 'succeeded' });
    const [ev] = await commit([], [{ type: 'billing.response', to: m.id, data }]);
    // The commit writes the event only; its deliveries are made from the table's stream.
    expect(ev!.deliveryIds).toEqual([]);
    for (const ep of [mAll, mBilling, pAll]) {
      const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
      expect(req!.headers['x-webhook-id']).toBe(ev!.id);
      expect(JSON.parse(req!.body)).toMatchObject({ id: ev!.id, type: 'billing.response', data: { reference: 'REF-1' } });
      expect(verifySignature(req!.headers['x-webhook-signature'], req!.body, ep.secret)).toBe(true);
    }
    await t.app.settle();
    expect(rx.received(mRefunds.path)).toHaveLength(0);
    expect(rx.received(stranger.path)).toHaveLength(0);
    // the provider sees its delivery, the merchant its two
    expect((await t.call('GET', '/v1/webhooks/deliveries', { key: p.apiKey })).body.data.total).toBe(1);
    expect((await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey })).body.data.total).toBe(2);
    // Each receiver's deliveries of the event, one per subscribed endpoint.
    const mine = await t.call('GET', `/v1/events/${ev!.id}`, { key: m.apiKey });
    expect(mine.body.data.deliveries.map((d: { endpointId: string }) => d.endpointId).sort()).toEqual([mAll.id, mBilling.id].sort());
    const theirs = await t.call('GET', `/v1/events/${ev!.id}`, { key: p.apiKey });
    expect(theirs.body.data.deliveries.map((d: { endpointId: string }) => d.endpointId)).toEqual([pAll.id]);
    // The body is built at delivery time (the event item stores none): exactly {id, type, createdAt, apiVersion, livemode, data}.
    const stored = await getItem<{ body?: string }>(eventKey(ev!.id));
    expect(stored!.body).toBeUndefined();
    const [req] = rx.received(mAll.path);
    expect(JSON.parse(req!.body)).toEqual({
      id: ev!.id,
      type: 'billing.response',
      createdAt: ev!.createdAt,
      apiVersion: API_VERSION,
      livemode: false,
      data,
    });
  });

  it('commits nothing when the caller’s item fails its condition', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const guard = { pk: `TEST#${m.id}`, sk: 'GUARD' };
    const put = { Put: { TableName: table(), Item: { ...guard, v: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } };
    await commit([put], []);
    await expect(commit([put], [{ type: 'billing.response', to: m.id, data: billingResponse() }])).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
    await t.app.settle();
    expect(rx.received(ep.path)).toHaveLength(0);
    expect((await t.call('GET', '/v1/webhooks/deliveries', { key: m.apiKey })).body.data.total).toBe(0);
  });

  it('refuses a transaction over 100 items with a clear error, writing nothing', async () => {
    const m = await t.participant('merchant');
    await createEndpoint(m);
    await createEndpoint(m);
    // The deliveries are no longer in the transaction (made from the stream): the caller's items and one event item are.
    const items = Array.from({ length: 100 }, (_, i) => ({
      Put: { TableName: table(), Item: { pk: `TEST#${m.id}#${i}`, sk: 'X' } },
    }));
    const err = await commit(items, [{ type: 'billing.response', to: m.id, data: billingResponse() }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboxTooLargeError);
    expect((err as Error).message).toContain('101 items (100 state + 1 events + 0 deliveries); DynamoDB allows 100');
    expect(await getItem({ pk: `TEST#${m.id}#0`, sk: 'X' })).toBeUndefined();
    // 99 + 1 = 100 fits, and the event still reaches both endpoints
    const [ok] = await commit(items.slice(0, 99), [{ type: 'billing.response', to: m.id, data: billingResponse() }]);
    await t.app.settle();
    expect((await t.call('GET', `/v1/events/${ok!.id}`, { key: m.apiKey })).body.data.deliveries).toHaveLength(2);
  });

  it('a crash between commit and enqueue still delivers, via the tick (recovery)', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const sent = await sendTestUnsent(m, ep.id);
    await drained();
    expect(rx.received(ep.path)).toHaveLength(0);
    const pending = await delivery(sent.deliveryId);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0, seq: 1 });
    expect(pending!.dueSk).toContain('#webhook.recovery#');

    // A tick before the grace period finds nothing for it; one after re-enqueues it.
    await t.app.tick(new Date());
    await t.app.settle();
    expect(rx.received(ep.path)).toHaveLength(0);
    await t.app.tick(new Date(Date.now() + 301_000));
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    expect(req!.headers['x-webhook-id']).toBe(sent.eventId);
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d.seq).toBe(2);
    expect(d.attempts).toBe(1);
  });

  it('a lost message (purged from SQS while waiting for its retry) is re-enqueued by the tick', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 500 }]);
    const sent = await sendTest(m, ep.id);
    const d1 = await waitForDelivery(sent.deliveryId, (x) => x.attempts === 1 && x.leaseUntil === undefined);
    expect(d1.status).toBe('pending');
    // The retry sleeps in the queue (a delayed message, sent once the attempt is recorded);
    // purging the queue then loses it.
    await expect
      .poll(
        async () =>
          Number(
            (
              await sqs.send(
                new GetQueueAttributesCommand({
                  QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS,
                  AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
                }),
              )
            ).Attributes?.ApproximateNumberOfMessagesDelayed ?? 0,
          ),
        { timeout: 20_000, interval: 50 },
      )
      .toBeGreaterThan(0);
    await sqs.send(new PurgeQueueCommand({ QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS }));
    await drained();
    expect(rx.received(ep.path)).toHaveLength(1);
    expect((await delivery(sent.deliveryId))!.status).toBe('pending');
    // overdue = next attempt + grace (300 s)
    await t.app.tick(new Date(Date.parse(d1.nextAttemptAt!) + 290_000));
    await t.app.settle();
    expect(await delivery(sent.deliveryId)).toMatchObject({ status: 'pending', seq: 1, attempts: 1 });
    await t.app.tick(new Date(Date.parse(d1.nextAttemptAt!) + 301_000));
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d.attempts).toBe(2);
    expect(d.seq).toBe(2);
    expect(rx.received(ep.path).map((r) => r.status)).toEqual([500, 200]);
  });

  it('a recovery falling due while an attempt is in flight sends it again (at least once): the same id and body, one attempt recorded', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 200, delayMs: 2000 });
    const sent = await sendTest(m, ep.id);
    // The attempt is at the receiver (nothing was written before its POST: DESIGN 10.2) when recovery falls due.
    await rx.waitFor(ep.path, (r) => r.length >= 1);
    expect(await delivery(sent.deliveryId)).toMatchObject({ status: 'pending', attempts: 0, seq: 1 });
    await t.app.tick(new Date(Date.now() + 301_000));
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    await rx.waitFor(ep.path, (r) => r.length >= 2);
    await t.app.settle();
    const reqs = rx.received(ep.path);
    expect(reqs).toHaveLength(2);
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.eventId]));
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    expect(await delivery(sent.deliveryId)).toMatchObject({ status: 'delivered', seq: 2, attempts: 1 });
    expect(d.duePk).toBeUndefined();
  });

  it('a worker that dies after its POST, before recording it: recovery makes the attempt again, with the same id and body', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    const sent = await sendTestUnsent(m, ep.id);
    const d0 = (await delivery(sent.deliveryId))!;
    // Deciding an attempt writes nothing (no claim before the POST: DESIGN 10.2).
    const decided = await claimAttempt(messageFor(d0, overdueAt(Date.parse(d0.createdAt))), Date.now(), Date.now());
    expect(decided).toMatchObject({ ok: true, item: { attempts: 1 } });
    expect(await delivery(sent.deliveryId)).toEqual(d0);
    // Recovery sends it; the worker POSTs, then its outcome write fails (it dies there).
    const dies = injectFaults({
      seed: 5,
      dynamo: [{ layer: 'call', rate: 1 }],
      commands: /^UpdateItem$/,
      match: (_c, input) => JSON.stringify(input ?? '').includes('attemptLog'),
    });
    dies.enable();
    try {
      await t.app.tick(new Date(Date.now() + 301_000));
      await rx.waitFor(ep.path, (r) => r.length >= 1);
      await expect.poll(() => dies.stats.injected, { timeout: 10_000, interval: 50 }).toBeGreaterThan(0);
    } finally {
      dies.remove();
    }
    expect(await delivery(sent.deliveryId)).toMatchObject({ status: 'pending', seq: 2, attempts: 0 });
    // The attempt is owed again: recovery, a grace period later, sends it once more.
    await t.app.tick(new Date(Date.now() + 700_000));
    const d = await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    expect(d).toMatchObject({ seq: 3, attempts: 1 });
    const reqs = rx.received(ep.path);
    expect(reqs.map((r) => r.headers['x-webhook-id'])).toEqual([sent.eventId, sent.eventId]);
    expect(reqs[1]!.body).toBe(reqs[0]!.body);
  });
});

describe('concurrency', () => {
  it('duplicate messages for one delivery: at least once, every copy with the same id and body; one attempt recorded', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 200, delayMs: 400 });
    const sent = await sendTest(m, ep.id);
    const d = (await delivery(sent.deliveryId))!;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        sqs.send(new SendMessageCommand({ QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS, MessageBody: JSON.stringify(messageFor(d)) })),
      ),
    );
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    await t.app.settle();
    await sleep(500);
    const reqs = rx.received(ep.path);
    expect(reqs.length).toBeGreaterThanOrEqual(1);
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.eventId]));
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    expect((await delivery(sent.deliveryId))!.attempts).toBe(1);
  });

  it('copies of a message arriving while the delivery waits for its retry are dropped', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.script(ep.path, [{ status: 429, headers: { 'Retry-After': '4' } }]);
    const sent = await sendTest(m, ep.id);
    const waiting = await waitForDelivery(sent.deliveryId, (x) => x.attempts === 1 && x.leaseUntil === undefined);
    expect(waiting.chainMessageId).toBeTruthy();
    await Promise.all(
      Array.from({ length: 4 }, () =>
        sqs.send(new SendMessageCommand({ QueueUrl: t.app.env.QUEUE_URL_WEBHOOKS, MessageBody: JSON.stringify(messageFor(waiting)) })),
      ),
    );
    // the copies are dropped at once: only the chain's own message sleeps in the queue (a
    // delayed message: DESIGN 9.6, no retry waits in flight)
    await expect.poll(queued, { timeout: QUEUE_WAIT_MS, interval: 100 }).toBe(1);
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    await t.app.settle();
    await sleep(1000);
    expect(rx.received(ep.path).map((r) => r.status)).toEqual([429, 200]);
    expect((await delivery(sent.deliveryId))!.attempts).toBe(2);
  });

  it('parallel replays: at least once each, always with the same event id and body', async () => {
    const m = await t.participant('merchant');
    const ep = await createEndpoint(m);
    rx.respond(ep.path, { status: 200, delayMs: 300 });
    const sent = await sendTest(m, ep.id);
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered');
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => t.call('POST', `/v1/webhooks/deliveries/${sent.deliveryId}/replay`, { key: m.apiKey })),
    );
    for (const r of replies) expect([202, 409]).toContain(r.status);
    const replayed = replies.filter((r) => r.status === 202).length;
    await waitForDelivery(sent.deliveryId, (x) => x.status === 'delivered' && x.attempts >= 2);
    await t.app.settle();
    const reqs = rx.received(ep.path);
    expect(reqs.length).toBeGreaterThanOrEqual(2);
    expect(new Set(reqs.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([sent.eventId]));
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    // Every recorded attempt was sent; a replay's copy may have been sent and not recorded.
    const d = (await delivery(sent.deliveryId))!;
    expect(d.attempts).toBeGreaterThanOrEqual(2);
    expect(d.attempts).toBeLessThanOrEqual(Math.min(reqs.length, 1 + replayed));
  });
});
