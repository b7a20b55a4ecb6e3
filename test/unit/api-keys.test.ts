import { describe, expect, it } from 'vitest';
import {
  checksum,
  hasValidChecksum,
  isWellFormedApiKey,
  keyWorks,
  newApiKeyToken,
  newOperatorKey,
  toBase62,
  withChecksum,
} from '../../functions/domain/api-keys';
import { BASE62, idTimeMs, newId } from '../../functions/domain/ids';

describe('key checksum (DESIGN 8.1)', () => {
  // Vectors computed independently (Python binascii.crc32, then base62 0-9A-Za-z, padded to 6).
  it.each([
    ['', '000000'], // CRC32 0x00000000
    ['123456789', '3jZRME'], // the CRC-32 check value 0xCBF43926
    ['The quick brown fox jumps over the lazy dog', '1C9bYH'], // 0x414FA339
    ['sk_sandbox_0123456789ABCDEFGHIJabcdefghij0123456789', '0nh7NM'], // 0x2BC4C97C
  ])('checksum(%j) = %s', (text, check) => {
    expect(checksum(text)).toBe(check);
    expect(withChecksum(text)).toBe(text + check);
  });

  it('writes base62 left-padded to the width; the largest CRC32 still fits in 6 characters', () => {
    expect(toBase62(0, 6)).toBe('000000');
    expect(toBase62(61, 6)).toBe('00000z');
    expect(toBase62(62, 6)).toBe('000010');
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3');
    expect(() => toBase62(-1, 6)).toThrow(RangeError);
  });

  it('issues sk_<stage>_ + 40 random base62 characters + 6 check characters', () => {
    const sandbox = newApiKeyToken('sandbox');
    const live = newApiKeyToken('live');
    expect(sandbox).toMatch(/^sk_sandbox_[0-9A-Za-z]{46}$/);
    expect(live).toMatch(/^sk_live_[0-9A-Za-z]{46}$/);
    expect(sandbox.slice(-6)).toBe(checksum(sandbox.slice(0, -6)));
    expect(isWellFormedApiKey(sandbox, 'sandbox')).toBe(true);
    expect(isWellFormedApiKey(live, 'live')).toBe(true);
    expect(newApiKeyToken('sandbox')).not.toBe(sandbox);
  });

  it('detects every single-character change of a key, check characters and prefix included', () => {
    const key = newApiKeyToken('sandbox');
    let tried = 0;
    for (let i = 0; i < key.length; i++) {
      for (const c of `${BASE62}_`) {
        if (c === key[i]) continue;
        const changed = key.slice(0, i) + c + key.slice(i + 1);
        expect(hasValidChecksum(changed), `${i}:${c}`).toBe(false);
        tried++;
      }
    }
    expect(tried).toBe(key.length * 62);
  });

  it('refuses malformed keys: wrong stage, short, long, foreign characters, no check', () => {
    const key = newApiKeyToken('sandbox');
    expect(isWellFormedApiKey(key, 'live')).toBe(false);
    expect(isWellFormedApiKey(withChecksum('sk_sandbox_abc'), 'sandbox')).toBe(false); // body under 20
    expect(isWellFormedApiKey(withChecksum(`sk_sandbox_${'a'.repeat(200)}`), 'sandbox')).toBe(false);
    expect(isWellFormedApiKey(withChecksum(`sk_sandbox_${'a'.repeat(30)}-`), 'sandbox')).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -6), 'sandbox')).toBe(false);
    expect(isWellFormedApiKey('sk_sandbox_', 'sandbox')).toBe(false);
    expect(hasValidChecksum('abc')).toBe(false);
  });

  it('generated operator keys carry the checksum too', () => {
    const op = newOperatorKey();
    expect(op).toMatch(/^op_[0-9A-Za-z]{46}$/);
    expect(hasValidChecksum(op)).toBe(true);
  });
});

describe('whether a key works (a participant is active while one does)', () => {
  const now = '2030-05-01T12:00:00.000Z';
  it('works unless revoked or expired; expired from its expiry instant on', () => {
    expect(keyWorks({}, now)).toBe(true);
    expect(keyWorks({ keyExpiresAt: '2030-05-01T12:00:00.001Z' }, now)).toBe(true);
    expect(keyWorks({ keyExpiresAt: now }, now)).toBe(false);
    expect(keyWorks({ keyExpiresAt: '2030-04-30T00:00:00.000Z' }, now)).toBe(false);
    expect(keyWorks({ revokedAt: '2030-04-30T00:00:00.000Z', keyExpiresAt: '2031-01-01T00:00:00.000Z' }, now)).toBe(false);
  });
});

describe('ids', () => {
  it("an id's time is when newId made it", () => {
    const before = Date.now();
    const id = newId('evt');
    expect(idTimeMs(id)).toBeGreaterThanOrEqual(before);
    expect(idTimeMs(id)).toBeLessThanOrEqual(Date.now());
    expect(idTimeMs('evt_0mxdkss2dYbYN3FpZVz3WmB')).toBe(parseInt('0mxdkss2d', 36));
  });
});
