/**
 * The events API (DESIGN 8.2): what was sent to a participant, newest first, paged by
 * `startingAfter`, filtered by type, time and delivery outcome, with delivery counts; kept
 * 30 days (TTL); isolated like every other resource (a provider also sees its merchants').
 */
import { describe, expect, it } from 'vitest';
import { eventKey } from '../../functions/webhooks/delivery-store';
import { getItem, putItem } from '../../functions/platform/table';
import { withAppAndReceiver, type TestApp } from '../support/app';
import { merchantWithTrust, webhook } from '../support/flows';
import type { Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
// One attempt per delivery: a failing receiver fails the delivery for good at once.
withAppAndReceiver(
  (app, receiver) => {
    t = app;
    rx = receiver;
  },
  { WEBHOOK_MAX_ATTEMPTS: '1' },
);

/** Sends `n` webhook.test events to the endpoint, a few ms apart (distinct createdAt). */
async function testEvents(key: string, endpointId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.call('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key });
    expect(r.status).toBe(202);
    ids.push(r.body.data.eventId);
    await sleep(5);
  }
  return ids;
}

async function settled(key: string, id: string, done: (e: any) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await t.call('GET', `/v1/events/${id}`, { key });
    if (r.status === 200 && done(r.body.data)) return r.body.data;
    if (Date.now() > deadline) throw new Error(`event ${id} did not settle: ${JSON.stringify(r.body)}`);
    await sleep(100);
  }
}

describe('GET /v1/events', () => {
  it('pages newest first by startingAfter with hasMore, no event twice, and counts the deliveries', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'events-paging' });
    const sent = await testEvents(m.apiKey, hook.endpointId, 5);
    await settled(m.apiKey, sent.at(-1)!, (e) => e.deliveries[0]?.status === 'delivered');

    const seen: string[] = [];
    let startingAfter: string | undefined;
    const pages: number[] = [];
    for (;;) {
      const r = await t.call('GET', '/v1/events', { key: m.apiKey, query: { limit: 2, ...(startingAfter ? { startingAfter } : {}) } });
      expect(r.status).toBe(200);
      expect(r.body.message).toBe('Events retrieved');
      const events = r.body.data.events as any[];
      pages.push(events.length);
      seen.push(...events.map((e) => e.id));
      if (!r.body.data.hasMore) break;
      startingAfter = events.at(-1).id;
    }
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual([...sent].reverse());

    const first = await t.call('GET', '/v1/events', { key: m.apiKey, query: { limit: 1 } });
    expect(first.body.data.events[0]).toMatchObject({
      id: sent.at(-1),
      type: 'webhook.test',
      deliveries: { total: 1, succeeded: 1, failed: 0, pending: 0 },
    });
    expect(first.body.data.events[0].data).toBeTypeOf('object');
  });

  it('filters by type and by createdFrom / createdTo (inclusive)', async () => {
    const { provider, merchant } = await merchantWithTrust(t, { trusted: true, trustLevel: 'basic' });
    const hook = await webhook(t, rx, merchant, { label: 'events-filters' });
    const sent = await testEvents(merchant.apiKey, hook.endpointId, 3);
    // A second type for the same merchant: its trust changes (merchant.trust.updated).
    const trust = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: provider!.apiKey,
      body: { entityId: merchant.id, trustLevel: 'enhanced', trusted: true },
    });
    expect(trust.status).toBe(200);
    // The events API's copies are made from the table's stream (DESIGN 9.6): let it catch up.
    await t.app.settle();

    const all = (await t.call('GET', '/v1/events', { key: merchant.apiKey, query: { limit: 100 } })).body.data.events as any[];
    const types = new Set(all.map((e) => e.type));
    expect(types.has('webhook.test')).toBe(true);
    expect(types.size).toBeGreaterThan(1);
    const onlyTests = (await t.call('GET', '/v1/events', { key: merchant.apiKey, query: { type: 'webhook.test', limit: 100 } })).body.data
      .events as any[];
    expect(onlyTests.map((e) => e.id)).toEqual([...sent].reverse());

    const middle = all.find((e) => e.id === sent[1])!;
    const from = (
      await t.call('GET', '/v1/events', { key: merchant.apiKey, query: { type: 'webhook.test', createdFrom: middle.createdAt } })
    ).body.data.events as any[];
    expect(from.map((e) => e.id)).toEqual([sent[2], sent[1]]);
    const to = (await t.call('GET', '/v1/events', { key: merchant.apiKey, query: { type: 'webhook.test', createdTo: middle.createdAt } }))
      .body.data.events as any[];
    expect(to.map((e) => e.id)).toEqual([sent[1], sent[0]]);
    // An offset is the same instant.
    const local = new Date(Date.parse(middle.createdAt)).toISOString().replace('Z', '+00:00');
    const fromLocal = (await t.call('GET', '/v1/events', { key: merchant.apiKey, query: { type: 'webhook.test', createdFrom: local } }))
      .body.data.events as any[];
    expect(fromLocal.map((e) => e.id)).toEqual([sent[2], sent[1]]);
  });

  it('deliverySuccess=false lists the events whose delivery failed for good; true the delivered ones', async () => {
    const m = await t.participant('merchant');
    const good = await webhook(t, rx, m, { label: 'events-good' });
    const bad = await webhook(t, rx, m, { label: 'events-bad' });
    rx.respond(bad.path, { status: 500 });
    const [ok] = await testEvents(m.apiKey, good.endpointId, 1);
    const [failed] = await testEvents(m.apiKey, bad.endpointId, 1);
    const detail = await settled(m.apiKey, failed!, (e) => e.deliveries[0]?.status === 'failed');
    expect(detail.deliveries).toEqual([
      {
        id: expect.stringMatching(/^dlv_/),
        endpointId: bad.endpointId,
        status: 'failed',
        attempts: 1,
        lastAttemptAt: expect.any(String),
        responseStatus: 500,
      },
    ]);
    await settled(m.apiKey, ok!, (e) => e.deliveries[0]?.status === 'delivered');

    const failures = (await t.call('GET', '/v1/events', { key: m.apiKey, query: { deliverySuccess: 'false' } })).body.data.events as any[];
    expect(failures.map((e) => e.id)).toEqual([failed]);
    expect(failures[0].deliveries).toEqual({ total: 1, succeeded: 0, failed: 1, pending: 0 });
    const successes = (await t.call('GET', '/v1/events', { key: m.apiKey, query: { deliverySuccess: 'true' } })).body.data.events as any[];
    expect(successes.map((e) => e.id)).toEqual([ok]);
  });

  it('refuses bad queries with 400 Invalid query parameters and the field, never 5xx', async () => {
    const m = await t.participant('merchant');
    for (const [query, path] of [
      [{ type: 'nope' }, 'type'],
      [{ deliverySuccess: 'yes' }, 'deliverySuccess'],
      [{ createdFrom: 'yesterday' }, 'createdFrom'],
      [{ limit: '101' }, 'limit'],
      [{ limit: '0' }, 'limit'],
      [{ createdFrom: '2026-02-01T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' }, 'createdFrom'],
      [{ startingAfter: 'evt_unknown' }, 'startingAfter'],
      [{ skip: '10' }, ''],
    ] as const) {
      const r = await t.call('GET', '/v1/events', { key: m.apiKey, query: query as Record<string, string> });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.message).toBe('Invalid query parameters');
      if (path) expect((r.body.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    }
  });

  it('keeps events 30 days: the event item carries the TTL attribute', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'events-ttl' });
    const [id] = await testEvents(m.apiKey, hook.endpointId, 1);
    const item = await getItem<{ createdAt: string; expiresAt: number }>(eventKey(id!));
    expect(item!.expiresAt).toBe(Math.floor(Date.parse(item!.createdAt) / 1000) + 30 * 24 * 3600);
  });

  it('an expired event is gone from the API, and its delivery can no longer be replayed (409, nothing re-sent)', async () => {
    const m = await t.participant('merchant');
    const hook = await webhook(t, rx, m, { label: 'events-expired' });
    const [id] = await testEvents(m.apiKey, hook.endpointId, 1);
    const { deliveries } = await settled(m.apiKey, id!, (e) => e.deliveries[0]?.status === 'delivered');
    // Past its 30 days (DynamoDB deletes expired items up to days later: the API treats them as gone).
    const item = await getItem<Record<string, unknown>>(eventKey(id!));
    await putItem({ ...item!, expiresAt: Math.floor(Date.now() / 1000) - 1 });
    expect((await t.call('GET', `/v1/events/${id}`, { key: m.apiKey })).status).toBe(404);
    expect(((await t.call('GET', '/v1/events', { key: m.apiKey })).body.data.events as any[]).map((e) => e.id)).not.toContain(id);
    const before = rx.received(hook.path).length;
    const replay = await t.call('POST', `/v1/webhooks/deliveries/${deliveries[0].id}/replay`, { key: m.apiKey });
    expect(replay.status).toBe(409);
    expect(replay.body).toMatchObject({
      success: false,
      message: 'The event of this delivery is older than 30 days and no longer kept',
      code: 'event_expired',
    });
    await sleep(500);
    expect(rx.received(hook.path).length).toBe(before);
  });
});

describe('isolation', () => {
  it("another participant's event is 404 Event not found and never listed; a provider sees its merchant's", async () => {
    const { provider, merchant } = await merchantWithTrust(t, { trusted: true, trustLevel: 'basic' });
    const other = await t.participant('merchant');
    const bank = await t.participant('bank');
    const hook = await webhook(t, rx, merchant, { label: 'events-iso' });
    const [id] = await testEvents(merchant.apiKey, hook.endpointId, 1);
    for (const key of [other.apiKey, bank.apiKey]) {
      const r = await t.call('GET', `/v1/events/${id}`, { key });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ statusCode: 404, success: false, message: 'Event not found' });
      const list = await t.call('GET', '/v1/events', { key, query: { limit: 100 } });
      expect((list.body.data.events as any[]).map((e) => e.id)).not.toContain(id);
      const after = await t.call('GET', '/v1/events', { key, query: { startingAfter: id! } });
      expect(after.status).toBe(400);
    }
    const own = await t.call('GET', `/v1/events/${id}`, { key: provider!.apiKey });
    expect(own.status).toBe(200);
    expect(own.body.data.deliveries).toEqual([]); // the merchant's endpoint is not the provider's
    const listed = await t.call('GET', '/v1/events', { key: provider!.apiKey, query: { limit: 100 } });
    expect((listed.body.data.events as any[]).map((e) => e.id)).toContain(id);
    expect((await t.call('GET', '/v1/events/%E0%A4%A', { key: merchant.apiKey })).status).toBe(404);
  });
});
