import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSecret, sign, signatureHeader, verifySignature } from '../../functions/events/signing';

const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', createdAt: '2026-11-02T10:00:00.000Z', data: { a: 'é' } });

describe('webhook signatures', () => {
  it('is the lowercase hex HMAC-SHA256 of the raw body with the secret string', () => {
    const secret = 'whsec_test';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(sign(secret, body)).toBe(expected);
    expect(sign(secret, body)).toMatch(/^[0-9a-f]{64}$/);
    // a known vector (RFC 4231-style check that the key is the secret's UTF-8 bytes)
    expect(sign('key', 'The quick brown fox jumps over the lazy dog')).toBe('f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
  });

  it('outside a rotation overlap the header is exactly one hex signature', () => {
    const now = Date.parse('2026-11-02T10:00:00Z');
    expect(signatureHeader(body, { current: 'whsec_new' }, now)).toBe(sign('whsec_new', body));
    // an expired previous secret is not used
    expect(signatureHeader(body, { current: 'whsec_new', previous: 'whsec_old', previousExpiresAt: '2026-11-02T09:59:59Z' }, now)).toBe(
      sign('whsec_new', body),
    );
  });

  it('during the overlap it carries both, comma separated, the current secret first', () => {
    const now = Date.parse('2026-11-02T10:00:00Z');
    const header = signatureHeader(body, { current: 'whsec_new', previous: 'whsec_old', previousExpiresAt: '2026-11-03T10:00:00Z' }, now);
    expect(header).toBe(`${sign('whsec_new', body)},${sign('whsec_old', body)}`);
    expect(verifySignature(header, body, 'whsec_new')).toBe(true);
    expect(verifySignature(header, body, 'whsec_old')).toBe(true);
    expect(verifySignature(header, body, 'whsec_other')).toBe(false);
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
