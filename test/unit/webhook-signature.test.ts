import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import {
  newSecret,
  sign,
  signatureHeader,
  signStandard,
  standardKey,
  verifySignature,
  webhookHeaders,
} from '../../functions/webhooks/signing';

const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: '2026-11-02T10:00:00.000Z', data: { a: 'é' } });

describe('webhook signatures', () => {
  it('is the lowercase hex HMAC-SHA256 of the raw body with the secret string', () => {
    const secret = 'whsec_test';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(sign(secret, body)).toBe(expected);
    expect(sign(secret, body)).toMatch(/^[0-9a-f]{64}$/);
    // a known vector (RFC 4231-style check that the key is the secret's UTF-8 bytes)
    expect(sign('key', 'The quick brown fox jumps over the lazy dog')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
  });

  it("X-Webhook-Signature is exactly one hex signature, the newest secret's, in and outside a rotation overlap (DESIGN 6.6, 10.3)", () => {
    const now = Date.parse('2026-11-02T10:00:00Z');
    const at = (previousExpiresAt?: string) =>
      webhookHeaders(
        'evt_1',
        body,
        { current: 'whsec_new', previous: 'whsec_old', ...(previousExpiresAt ? { previousExpiresAt } : {}) },
        now,
      )['X-Webhook-Signature'];
    expect(signatureHeader(body, { current: 'whsec_new' })).toBe(sign('whsec_new', body));
    for (const header of [at(), at('2026-11-02T09:59:59Z'), at('2026-11-03T10:00:00Z')]) {
      expect(header).toBe(sign('whsec_new', body));
      expect(header).toMatch(/^[0-9a-f]{64}$/);
      expect(verifySignature(header, body, 'whsec_new')).toBe(true);
      expect(verifySignature(header, body, 'whsec_old')).toBe(false);
    }
  });

  it('verification rejects tampered bodies and malformed headers', () => {
    const header = sign('whsec_a', body);
    expect(verifySignature(header, body, 'whsec_a')).toBe(true);
    expect(verifySignature(header, `${body} `, 'whsec_a')).toBe(false);
    expect(verifySignature(header.toUpperCase().slice(0, 10), body, 'whsec_a')).toBe(false);
    expect(verifySignature('', body, 'whsec_a')).toBe(false);
    expect(verifySignature(undefined, body, 'whsec_a')).toBe(false);
    expect(verifySignature('zz', body, 'whsec_a')).toBe(false);
  });

  it('secrets are whsec_ + 40 base62 characters, all different', () => {
    const secrets = new Set(Array.from({ length: 100 }, newSecret));
    expect(secrets.size).toBe(100);
    for (const s of secrets) expect(s).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
  });
});

describe('Standard Webhooks headers (DESIGN 8.2)', () => {
  const now = Date.parse('2026-11-02T10:00:00.400Z');
  const ts = String(Math.floor(now / 1000));

  it('the key is the base64-decoded part after whsec_; the signature is v1,<base64 HMAC of "id.timestamp.body">', () => {
    const secret = `whsec_${Buffer.from('a 24-byte key for tests', 'utf8').toString('base64')}`;
    const mac = createHmac('sha256', Buffer.from('a 24-byte key for tests', 'utf8')).update(`evt_1.${ts}.${body}`, 'utf8').digest('base64');
    expect(standardKey(secret).toString('utf8')).toBe('a 24-byte key for tests');
    expect(signStandard(secret, 'evt_1', ts, body)).toBe(`v1,${mac}`);
  });

  it('agrees with the standardwebhooks library for real secrets (40 base62 characters decode as base64)', () => {
    for (let i = 0; i < 50; i++) {
      const secret = newSecret();
      expect(signStandard(secret, 'evt_1', ts, body)).toBe(new Webhook(secret).sign('evt_1', new Date(now), body));
    }
  });

  it('webhookHeaders: 6.6 and Standard Webhooks side by side, same id and timestamp', () => {
    const h = webhookHeaders('evt_1', body, { current: 'whsec_new' }, now);
    expect(h).toEqual({
      'X-Webhook-Id': 'evt_1',
      'X-Webhook-Timestamp': ts,
      'X-Webhook-Signature': sign('whsec_new', body),
      'webhook-id': 'evt_1',
      'webhook-timestamp': ts,
      'webhook-signature': signStandard('whsec_new', 'evt_1', ts, body),
    });
    // an expired previous secret signs under neither scheme
    const expired = webhookHeaders(
      'evt_1',
      body,
      { current: 'whsec_new', previous: 'whsec_old', previousExpiresAt: '2026-11-02T09:59:59Z' },
      now,
    );
    expect(expired['webhook-signature']).toBe(signStandard('whsec_new', 'evt_1', ts, body));
  });

  it('during a rotation overlap: webhook-signature has one value per valid secret, space separated, the current first (the library verifies either); X-Webhook-Signature the current one only', () => {
    const current = newSecret();
    const previous = newSecret();
    const h = webhookHeaders('evt_1', body, { current, previous, previousExpiresAt: '2026-11-03T10:00:00Z' }, now);
    expect(h['webhook-signature']).toBe(`${signStandard(current, 'evt_1', ts, body)} ${signStandard(previous, 'evt_1', ts, body)}`);
    expect(h['X-Webhook-Signature']).toBe(sign(current, body));
    vi.useFakeTimers({ now, toFake: ['Date'] });
    try {
      expect(new Webhook(current).verify(body, h)).toEqual(JSON.parse(body));
      expect(new Webhook(previous).verify(body, h)).toEqual(JSON.parse(body));
      expect(() => new Webhook(newSecret()).verify(body, h)).toThrow('No matching signature found');
      expect(() => new Webhook(current).verify(`${body} `, h)).toThrow('No matching signature found');
    } finally {
      vi.useRealTimers();
    }
  });
});
