/**
 * The SDK's verifyWebhook (sdk/src/webhooks.ts) against the server's own signing code
 * (functions/webhooks/signing.ts) and the standardwebhooks library: both schemes, a rotation
 * overlap, stale and future timestamps, tampering, wrong secrets, the downgrade refusal.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, webhookHeaders } from '../../functions/webhooks/signing';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookVerificationErrorCode } from '../../sdk/src/index';

const event = {
  id: 'evt_1',
  type: 'webhook.test',
  createdAt: '2026-11-02T10:00:00.000Z',
  data: { endpointId: 'whe_1', participantId: 'mer_1', message: 'héllo' },
};
const body = JSON.stringify(event);
const now = Date.parse('2026-11-02T10:00:00.400Z');
const secret = newSecret();
const previous = newSecret();

const STANDARD = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const LEGACY = ['X-Webhook-Id', 'X-Webhook-Timestamp', 'X-Webhook-Signature'];
const only = (h: Record<string, string>, names: string[]) => Object.fromEntries(Object.entries(h).filter(([k]) => names.includes(k)));

function refusal(fn: () => unknown): WebhookVerificationErrorCode {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    expect((e as Error).name).toBe('WebhookVerificationError');
    return (e as WebhookVerificationError).code;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  const headers = webhookHeaders('evt_1', body, { current: secret }, now);

  it('accepts a delivery under either scheme, alone or together, and returns the typed event', () => {
    for (const h of [headers, only(headers, STANDARD), only(headers, LEGACY)]) {
      const e: WebhookEvent = verifyWebhook(body, h, secret, { now });
      expect(e).toEqual(event);
      if (e.type === 'webhook.test') expect(e.data.endpointId).toBe('whe_1'); // narrowed by `type` (compile-time check)
    }
    // a Buffer body, a fetch Headers, node-style lower-case names, the default tolerance against the clock
    const live = webhookHeaders('evt_1', body, { current: secret }, Date.now());
    expect(verifyWebhook(Buffer.from(body), new Headers(live), secret)).toEqual(event);
    const lower = Object.fromEntries(Object.entries(live).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook(new TextEncoder().encode(body), lower, secret)).toEqual(event);
  });

  it('agrees with the standardwebhooks library: what it signs verifies, and vice versa', () => {
    const wh = new Webhook(secret);
    const signed = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now / 1000)),
      'webhook-signature': wh.sign('evt_1', new Date(now), body),
    };
    expect(verifyWebhook(body, signed, secret, { now })).toEqual(event);
    expect(signed['webhook-signature']).toBe(headers['webhook-signature']);
  });

  it('rotation overlap: Standard Webhooks carries both secrets (old and new verify), X-Webhook-Signature the new one only (DESIGN 10.3)', () => {
    const h = webhookHeaders('evt_1', body, { current: secret, previous, previousExpiresAt: '2026-11-03T10:00:00Z' }, now);
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(h['X-Webhook-Signature']!.split(',')).toHaveLength(1);
    for (const names of [STANDARD, LEGACY]) {
      expect(verifyWebhook(body, only(h, names), secret, { now })).toEqual(event);
      expect(refusal(() => verifyWebhook(body, only(h, names), newSecret(), { now }))).toBe('invalid_signature');
    }
    expect(verifyWebhook(body, only(h, STANDARD), previous, { now })).toEqual(event);
    expect(verifyWebhook(body, only(h, STANDARD), [newSecret(), previous], { now })).toEqual(event);
    expect(verifyWebhook(body, h, previous, { now })).toEqual(event);
    expect(refusal(() => verifyWebhook(body, only(h, LEGACY), previous, { now }))).toBe('invalid_signature');
  });

  it('refuses stale and future timestamps beyond the tolerance (300 s by default), under both schemes', () => {
    for (const names of [STANDARD, LEGACY]) {
      const h = only(headers, names);
      expect(verifyWebhook(body, h, secret, { now: now + 300_000 })).toEqual(event);
      expect(refusal(() => verifyWebhook(body, h, secret, { now: now + 301_000 }))).toBe('timestamp_too_old');
      expect(refusal(() => verifyWebhook(body, h, secret, { now: now - 301_000 }))).toBe('timestamp_too_new');
      expect(refusal(() => verifyWebhook(body, h, secret, { now: now + 61_000, toleranceSeconds: 60 }))).toBe('timestamp_too_old');
      expect(refusal(() => verifyWebhook(body, h, secret))).toBe('timestamp_too_old'); // the clock: 2026-11-02 is long gone
    }
    expect(refusal(() => verifyWebhook(body, { ...only(headers, STANDARD), 'webhook-timestamp': 'soon' }, secret, { now }))).toBe(
      'invalid_timestamp',
    );
  });

  it('refuses a tampered body, id or timestamp, and a wrong secret', () => {
    const tampered = body.replace('héllo', 'hello');
    for (const names of [STANDARD, LEGACY]) {
      expect(refusal(() => verifyWebhook(tampered, only(headers, names), secret, { now }))).toBe('invalid_signature');
      expect(refusal(() => verifyWebhook(body, only(headers, names), newSecret(), { now }))).toBe('invalid_signature');
    }
    const std = only(headers, STANDARD);
    expect(refusal(() => verifyWebhook(body, { ...std, 'webhook-id': 'evt_2' }, secret, { now }))).toBe('invalid_signature');
    expect(
      refusal(() => verifyWebhook(body, { ...std, 'webhook-timestamp': String(Number(std['webhook-timestamp']) + 1) }, secret, { now })),
    ).toBe('invalid_signature');
    expect(refusal(() => verifyWebhook(body, { ...std, 'webhook-signature': 'v2,abc' }, secret, { now }))).toBe('invalid_signature');
  });

  it('when webhook-signature is present it decides: a matching 6.6 signature cannot rescue a replay with a rewritten timestamp', () => {
    const old = webhookHeaders('evt_1', body, { current: secret }, now - 3_600_000);
    const fresh = String(Math.floor(now / 1000));
    const replayed = { ...old, 'webhook-timestamp': fresh, 'X-Webhook-Timestamp': fresh };
    expect(refusal(() => verifyWebhook(body, replayed, secret, { now }))).toBe('invalid_signature');
    // with only 6.6's headers the timestamp is not signed; allowLegacy: false refuses them
    expect(refusal(() => verifyWebhook(body, only(headers, LEGACY), secret, { now, allowLegacy: false }))).toBe('missing_headers');
    expect(verifyWebhook(body, only(headers, STANDARD), secret, { now, allowLegacy: false })).toEqual(event);
  });

  it('missing headers, a parsed body, an empty secret and a signed non-event are refused with their codes', () => {
    expect(refusal(() => verifyWebhook(body, {}, secret, { now }))).toBe('missing_headers');
    expect(refusal(() => verifyWebhook(body, { 'webhook-signature': headers['webhook-signature'] }, secret, { now }))).toBe(
      'missing_headers',
    );
    expect(refusal(() => verifyWebhook(body, only(headers, ['X-Webhook-Signature']), secret, { now }))).toBe('missing_headers');
    expect(refusal(() => verifyWebhook(JSON.parse(body), headers, secret, { now }))).toBe('invalid_body');
    expect(refusal(() => verifyWebhook(body, headers, '', { now }))).toBe('invalid_secret');
    expect(refusal(() => verifyWebhook(body, headers, 'whsec_', { now }))).toBe('invalid_secret');
    expect(refusal(() => verifyWebhook(body, headers, [], { now }))).toBe('invalid_secret');
    for (const raw of ['not json', '[]', '{"id":"evt_1","type":"webhook.test"}']) {
      const h = webhookHeaders('evt_1', raw, { current: secret }, now);
      expect(refusal(() => verifyWebhook(raw, h, secret, { now }))).toBe('invalid_payload');
    }
  });
});
