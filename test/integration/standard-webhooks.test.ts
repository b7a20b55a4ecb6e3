/**
 * Standard Webhooks headers (DESIGN 8.2) end to end: a receiver verifies every delivery with
 * the `standardwebhooks` npm library exactly as an integrator would (raw body, the three
 * `webhook-*` headers, the endpoint secret as shown once), including every retry, a rotation
 * overlap (old and new secret both verify) and a stale delivery refused.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifySignature } from '../../functions/webhooks/signing';
import { verifyWebhook, WebhookVerificationError as SdkVerificationError } from '../../sdk/src/index';
import { startTestApp, type TestApp } from '../support/app';
import { startReceiver, type ReceivedRequest, type Receiver } from '../../local/receiver';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_BACKOFF_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '3' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.stop();
});

type Who = { id: string; apiKey: string };

async function endpoint(who: Who) {
  const { url, path } = rx.endpointUrl('sw');
  const r = await t.call('POST', '/v1/webhooks/endpoints', { key: who.apiKey, body: { url } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.data.id as string, secret: r.body.data.secret as string, path };
}

async function sendTest(who: Who, endpointId: string) {
  const r = await t.call('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key: who.apiKey });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.data as { eventId: string; deliveryId: string };
}

const LEGACY = ['x-webhook-id', 'x-webhook-timestamp', 'x-webhook-signature'];
const STANDARD = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const only = (req: ReceivedRequest, names: string[]) => Object.fromEntries(Object.entries(req.headers).filter(([k]) => names.includes(k)));

/** The SDK's verifyWebhook on one scheme's headers of a received request: the event, or the error's code. */
function sdkVerify(secret: string, req: ReceivedRequest, names: string[], now?: number): unknown {
  try {
    return verifyWebhook(req.body, only(req, names), secret, { toleranceSeconds: 300, now });
  } catch (e) {
    if (e instanceof SdkVerificationError) return e.code;
    throw e;
  }
}

/** What a receiver's handler does with the library: the parsed event, or the library's error. */
function verify(secret: string, req: ReceivedRequest): unknown {
  return new Webhook(secret).verify(req.body, req.headers);
}

describe('Standard Webhooks headers', () => {
  it('every delivery carries webhook-id, webhook-timestamp and webhook-signature that the library verifies', async () => {
    const m = await t.participant('merchant');
    const ep = await endpoint(m);
    const sent = await sendTest(m, ep.id);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    const h = req!.headers;
    expect(h['webhook-id']).toBe(sent.eventId);
    expect(h['webhook-id']).toBe(h['x-webhook-id']);
    expect(h['webhook-timestamp']).toBe(h['x-webhook-timestamp']);
    expect(Math.abs(Number(h['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const event = verify(ep.secret, req!) as { id: string; type: string; data: { endpointId: string } };
    expect(event).toMatchObject({ id: sent.eventId, type: 'webhook.test', data: { endpointId: ep.id } });
    // 6.6's header is still there and still verifies
    expect(verifySignature(h['x-webhook-signature'], req!.body, ep.secret)).toBe(true);
    // another secret, a tampered body, or a changed id / timestamp are refused
    const other = await endpoint(m);
    expect(() => verify(other.secret, req!)).toThrow(WebhookVerificationError);
    expect(() => verify(ep.secret, { ...req!, body: req!.body.replace('webhook.test', 'webhook.tesT') })).toThrow(
      'No matching signature found',
    );
    expect(() => verify(ep.secret, { ...req!, headers: { ...h, 'webhook-id': 'evt_other' } })).toThrow('No matching signature found');
    expect(() =>
      verify(ep.secret, { ...req!, headers: { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) } }),
    ).toThrow('No matching signature found');
  });

  it('every attempt of a retried delivery is signed for its own timestamp and verifies', async () => {
    const m = await t.participant('merchant');
    const ep = await endpoint(m);
    rx.script(ep.path, [{ status: 500 }, { status: 503 }]);
    await sendTest(m, ep.id);
    const reqs = await rx.waitFor(ep.path, (r) => r.length >= 3, 30_000);
    expect(reqs.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of reqs) expect(verify(ep.secret, r)).toMatchObject({ type: 'webhook.test' });
    // the backoff is >= 1 s, so the attempts have different timestamps: each signature covers its own
    expect(reqs[2]!.headers['webhook-timestamp']).not.toBe(reqs[0]!.headers['webhook-timestamp']);
    expect(() =>
      verify(ep.secret, { ...reqs[2]!, headers: { ...reqs[2]!.headers, 'webhook-signature': reqs[0]!.headers['webhook-signature']! } }),
    ).toThrow('No matching signature found');
  });

  it('during a rotation overlap: one webhook-signature value per valid secret, and both the old and the new secret verify', async () => {
    const m = await t.participant('merchant');
    const ep = await endpoint(m);
    const rot = await t.call('POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { key: m.apiKey });
    expect(rot.status).toBe(200);
    const newSecret = rot.body.data.secret as string;
    await sendTest(m, ep.id);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    const values = req!.headers['webhook-signature']!.split(' ');
    expect(values).toHaveLength(2);
    expect(values[0]).toBe(
      new Webhook(newSecret).sign(req!.headers['webhook-id']!, new Date(Number(req!.headers['webhook-timestamp']) * 1000), req!.body),
    );
    expect(values[1]).toBe(
      new Webhook(ep.secret).sign(req!.headers['webhook-id']!, new Date(Number(req!.headers['webhook-timestamp']) * 1000), req!.body),
    );
    expect(verify(newSecret, req!)).toMatchObject({ type: 'webhook.test' });
    expect(verify(ep.secret, req!)).toMatchObject({ type: 'webhook.test' });
    // the SDK's verifyWebhook too: Standard Webhooks with either secret; X-Webhook-Signature
    // holds the new secret's value only (DESIGN 10.3)
    expect(sdkVerify(newSecret, req!, STANDARD)).toMatchObject({ type: 'webhook.test' });
    expect(sdkVerify(ep.secret, req!, STANDARD)).toMatchObject({ type: 'webhook.test' });
    expect(sdkVerify(newSecret, req!, LEGACY)).toMatchObject({ type: 'webhook.test' });
    expect(req!.headers['x-webhook-signature']!.split(',')).toHaveLength(1);

    // rotating again drops the oldest: it no longer verifies
    const rot2 = await t.call('POST', `/v1/webhooks/endpoints/${ep.id}/rotate-secret`, { key: m.apiKey });
    await sendTest(m, ep.id);
    const reqs = await rx.waitFor(ep.path, (r) => r.length >= 2);
    expect(reqs[1]!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rot2.body.data.secret, reqs[1]!)).toMatchObject({ type: 'webhook.test' });
    expect(verify(newSecret, reqs[1]!)).toMatchObject({ type: 'webhook.test' });
    expect(() => verify(ep.secret, reqs[1]!)).toThrow('No matching signature found');
  });

  it('a delivery replayed later than the tolerance (5 min) is refused as too old, one from the future as too new (the library and verifyWebhook)', async () => {
    const m = await t.participant('merchant');
    const ep = await endpoint(m);
    await sendTest(m, ep.id);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    const sentAt = Number(req!.headers['webhook-timestamp']) * 1000;
    vi.useFakeTimers({ now: sentAt + 301_000, toFake: ['Date'] });
    try {
      expect(() => verify(ep.secret, req!)).toThrow('Message timestamp too old');
      vi.setSystemTime(sentAt - 301_000);
      expect(() => verify(ep.secret, req!)).toThrow('Message timestamp too new');
      vi.setSystemTime(sentAt + 299_000);
      expect(verify(ep.secret, req!)).toMatchObject({ type: 'webhook.test' });
      // verifyWebhook (SDK) refuses it the same way, under each scheme
      for (const names of [STANDARD, LEGACY]) {
        expect(sdkVerify(ep.secret, req!, names, sentAt + 301_000)).toBe('timestamp_too_old');
        expect(sdkVerify(ep.secret, req!, names, sentAt - 301_000)).toBe('timestamp_too_new');
        expect(sdkVerify(ep.secret, req!, names, sentAt + 299_000)).toMatchObject({ type: 'webhook.test' });
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('a real flow event (billing.intent to the bank) verifies too', async () => {
    const bank = await t.participant('bank');
    const merchant = await t.participant('merchant');
    const ep = await endpoint(bank);
    const batch = await t.call('POST', '/v1/bank/customers', {
      key: bank.apiKey,
      body: {
        customers: [
          {
            clientRef: 'C-1',
            firstname: 'Ada',
            lastname: 'Obi',
            email: `ada-${ep.id}@example.com`,
            country: 'NG',
            accountNumber: '1000000001',
            reference: 'R-1',
          },
        ],
      },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const banks = await t.call('GET', '/v1/customer/banks', { key: merchant.apiKey, query: { email: `ada-${ep.id}@example.com` } });
    expect(banks.status, JSON.stringify(banks.body)).toBe(200);
    const intent = await t.call('POST', '/v1/billing/intent', {
      key: merchant.apiKey,
      body: { lookupPhrases: [banks.body.data.banks[0].lookupPhrase], currency: 'NGN', description: 'Plan' },
    });
    expect(intent.status, JSON.stringify(intent.body)).toBe(200);
    const [req] = await rx.waitFor(ep.path, (r) => r.length >= 1);
    expect(verify(ep.secret, req!)).toMatchObject({ type: 'billing.intent', data: { entityId: merchant.id } });
  });
});
