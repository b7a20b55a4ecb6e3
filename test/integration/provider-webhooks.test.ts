/**
 * merchant.trust.updated reaches the merchant and its provider as a signed webhook, and a
 * provider manages its merchant's webhook endpoints with X-Entity-Id.
 */
import { API_VERSION } from '../../functions/platform/api-request';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withAppAndReceiver, type TestApp } from '../support/app';
import type { Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;
withAppAndReceiver((app, receiver) => {
  t = app;
  rx = receiver;
});

async function endpointFor(key: string, headers: Record<string, string> = {}, events?: string[]) {
  const { url, path } = rx.endpointUrl('trust');
  const r = await t.call('POST', '/v1/webhooks/endpoints', { key, headers, body: events ? { url, events } : { url } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id as string, secret: r.body.data.secret as string, path };
}

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('merchant.trust.updated webhook', () => {
  it('is delivered, signed, to the merchant and to its provider; not to another provider', async () => {
    const p = await t.participant('provider');
    const other = await t.participant('provider');
    const created = await t.call('POST', '/v1/provider/merchants', {
      key: p.apiKey,
      body: { merchants: [{ name: 'Hooked', email: `hooked-${Date.now()}@example.com` }] },
    });
    const m = created.body.data.merchants[0] as { id: string; apiKey: string };

    // The provider registers the merchant's endpoint for it (X-Entity-Id) ...
    const merchantEp = await endpointFor(p.apiKey, { 'x-entity-id': m.id }, ['merchant.trust.updated']);
    // ... which is the merchant's own: its key lists it.
    const listed = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
    expect(listed.body.data.endpoints.map((e: any) => e.id)).toContain(merchantEp.id);
    const providerEp = await endpointFor(p.apiKey);
    const otherEp = await endpointFor(other.apiKey);

    const r = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: p.apiKey,
      body: { entityId: m.id, trusted: true, trustLevel: 'enhanced' },
    });
    expect(r.status).toBe(200);
    const expectedData = {
      entityId: m.id,
      trusted: true,
      trustLevel: 'enhanced',
      deviceLookupEnabled: false,
      lastVerified: r.body.data.lastVerified,
      // DESIGN 10.5: the discovery limits in force (the defaults: the provider set none).
      discoveryDailyLimit: 1000,
      discoveryMissLimit: 100,
    };

    const bodies: any[] = [];
    for (const ep of [merchantEp, providerEp]) {
      const [req] = await rx.waitFor(ep.path, (reqs) => reqs.length >= 1);
      expect(req!.method).toBe('POST');
      expect(req!.headers['x-webhook-signature']).toBe(hmac(ep.secret, req!.body));
      const body = JSON.parse(req!.body);
      expect(body).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'merchant.trust.updated',
        createdAt: expect.any(String),
        apiVersion: API_VERSION,
        livemode: false,
        data: expectedData,
      });
      expect(req!.headers['x-webhook-id']).toBe(body.id);
      bodies.push(body);
    }
    // One event, delivered to both receivers.
    expect(bodies[0].id).toBe(bodies[1].id);
    await t.app.settle();
    expect(rx.received(otherEp.path)).toHaveLength(0);
  });

  it('a rejected trust change (403) sends nothing', async () => {
    const p = await t.participant('provider');
    const created = await t.call('POST', '/v1/provider/merchants', {
      key: p.apiKey,
      body: { merchants: [{ name: 'Quiet', email: `quiet-${Date.now()}@example.com` }] },
    });
    const m = created.body.data.merchants[0] as { id: string };
    const ep = await endpointFor(p.apiKey);
    const r = await t.call('PATCH', '/v1/provider/merchant/trust', {
      key: p.apiKey,
      body: { entityId: m.id, trusted: true, trustLevel: 'premium' },
    });
    expect(r.status).toBe(403);
    await t.app.settle();
    expect(rx.received(ep.path)).toHaveLength(0);
  });
});
