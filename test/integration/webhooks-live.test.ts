/**
 * Webhook URL rules in the live stage (DESIGN 6.9): https only; localhost, private,
 * loopback and link-local addresses refused at creation, and names resolving to them
 * refused at delivery time (after DNS resolution, before any connection).
 */
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryKey, type DeliveryItem } from '../../functions/webhooks/delivery-store';
import { isAddressAllowed } from '../../functions/webhooks/url-policy';
import { getItem } from '../../functions/platform/table';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type Receiver } from '../../local/receiver';
import { sleep } from '../../functions/platform/retry';

let t: TestApp;
let rx: Receiver;
let m: { id: string; apiKey: string };

beforeAll(async () => {
  t = await startTestApp({ STAGE: 'live', WEBHOOK_BACKOFF_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '2' });
  rx = await startReceiver();
  m = await t.participant('merchant');
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

async function endpointCount() {
  const r = await t.call('GET', '/v1/webhooks/endpoints', { key: m.apiKey });
  expect(r.status).toBe(200);
  return r.body.data.total as number;
}

/** Each URL: 400 with the address message; nothing written. */
async function expectAddressRefused(urls: string[]) {
  for (const url of urls) {
    const r = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url } });
    expect(r.status, url).toBe(400);
    expect(r.body).toMatchObject({
      statusCode: 400,
      success: false,
      message: 'Invalid request parameters',
      code: 'invalid_request_parameters',
    });
    expect(r.body.errors, url).toEqual([{ path: 'url', message: 'must not point to a private, loopback or link-local address' }]);
  }
  expect(await endpointCount()).toBe(0);
}

describe('live webhook URLs', () => {
  it('uses live keys', () => {
    expect(m.apiKey).toMatch(/^sk_live_/);
  });

  it('refuses http with 400 Invalid request parameters and writes nothing', async () => {
    const r = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url: 'http://example.com/hook' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      statusCode: 400,
      success: false,
      message: 'Invalid request parameters',
      code: 'invalid_request_parameters',
    });
    expect(r.body.errors).toEqual([{ path: 'url', message: 'must use https in the live environment' }]);
    expect(await endpointCount()).toBe(0);
  });

  it('refuses localhost, private, loopback, link-local and unspecified addresses', async () => {
    const refused = [
      'https://localhost/hook',
      'https://localhost.:8443/hook',
      'https://app.localhost/hook',
      'https://127.0.0.1/hook',
      'https://127.8.9.10:8443/hook',
      'https://10.0.0.1/hook',
      'https://172.16.5.4/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/hook',
      'https://[::1]/hook',
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
    ];
    await expectAddressRefused(refused);
  });

  it('refuses the release 2 ranges (DESIGN 8.1): NAT64, 6to4, Teredo, ULA, link-local, AWS IPv6 metadata, 169.254/16 in any form', async () => {
    const refused = [
      'https://[64:ff9b::808:808]/hook',
      'https://[64:ff9b::ffff:ffff]/hook',
      'https://[64:ff9b:1::1]/hook',
      'https://[2002:808:808::1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
      'https://[fdff:ffff::1]/hook',
      'https://[febf::1]/hook',
      'https://[fd00:ec2::254]/latest/meta-data',
      'https://[::ffff:169.254.169.254]/latest/meta-data',
      'https://[::ffff:a9fe:a9fe]/hook',
      'https://169.254.0.1/hook',
    ];
    await expectAddressRefused(refused);
    // neighbours stay public
    for (const url of ['https://[64:ff9b::1:0:0]/hook', 'https://[2001:1::1]/hook', 'https://[2003::1]/hook', 'https://169.255.0.1/hook']) {
      const r = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url } });
      expect(r.status, url).toBe(201);
      expect((await t.call('DELETE', `/v1/webhooks/endpoints/${r.body.data.id}`, { key: m.apiKey })).status).toBe(200);
    }
  });

  it('accepts a public https URL', async () => {
    const r = await t.call('POST', '/v1/webhooks/endpoints', {
      key: m.apiKey,
      body: { url: 'https://hooks.example.com/idpay', events: ['billing.response'] },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ url: 'https://hooks.example.com/idpay', events: ['billing.response'] });
    const del = await t.call('DELETE', `/v1/webhooks/endpoints/${r.body.data.id}`, { key: m.apiKey });
    expect(del.status).toBe(200);
  });

  // A name that passes creation but resolves to loopback: this machine's hostname usually
  // does (/etc/hosts). The delivery worker must refuse it after resolution, before connecting.
  const host = hostname();
  const resolvesPrivately = lookup(host, { all: true })
    .then((as) => as.length > 0 && as.every((a) => !isAddressAllowed(a.address, 'live')))
    .catch(() => false);

  it('re-checks the address at delivery time: a name resolving to loopback is never contacted', async (ctx) => {
    if (!(await resolvesPrivately)) ctx.skip();
    const port = new URL(rx.url).port;
    const url = `https://${host}:${port}/rebind`;
    const created = await t.call('POST', '/v1/webhooks/endpoints', { key: m.apiKey, body: { url } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const sent = await t.call('POST', `/v1/webhooks/endpoints/${id}/test`, { key: m.apiKey });
    expect(sent.status).toBe(202);
    const deliveryId = sent.body.data.deliveryId as string;
    const deadline = Date.now() + 60_000; // the delivery worker on a loaded machine
    let d: DeliveryItem | undefined;
    while (Date.now() < deadline) {
      d = await getItem<DeliveryItem>(deliveryKey(deliveryId));
      if (d?.status === 'failed') break;
      await sleep(100);
    }
    expect(d).toMatchObject({ status: 'failed', attempts: 2, lastStatusCode: null, lastError: 'address_not_allowed' });
    expect(rx.connections()).toBe(0);
    expect(rx.requests).toHaveLength(0);
  });
});
