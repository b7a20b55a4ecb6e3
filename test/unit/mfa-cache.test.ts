/**
 * The API's memory of a person's two-factor authentication (DESIGN 10.3: "cached <= 60 s",
 * identity/mfa.ts): "the app is on" is believed for the bound and not a moment longer, and the
 * bound never exceeds 60 s whatever MFA_CACHE_SECONDS says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../functions/config';
import { MfaCache, mfaRequiredRoles } from '../../functions/identity/mfa';

describe('MFA cache (DESIGN 10.3)', () => {
  afterEach(() => {
    delete process.env.MFA_CACHE_SECONDS;
  });

  it('"on" holds until the bound has passed since it was learnt, then is asked again; a forgotten person is asked at once', () => {
    const cache = new MfaCache();
    const t0 = Date.parse('2026-12-01T10:00:00Z');
    cache.remember('sub-a', t0);
    expect(cache.isOn('sub-a', t0 + 59_999, 60_000)).toBe(true);
    expect(cache.isOn('sub-a', t0 + 60_000, 60_000)).toBe(false);
    // Expired entries go: the next look is a miss even with a longer bound.
    expect(cache.isOn('sub-a', t0 + 1, 120_000)).toBe(false);
    cache.remember('sub-b', t0);
    cache.forget('sub-b');
    expect(cache.isOn('sub-b', t0, 60_000)).toBe(false);
    expect(cache.isOn('sub-c', t0, 60_000)).toBe(false);
  });

  it('the bound is 60 s by default and never more; tests may shorten it', () => {
    expect(config.mfaCacheSeconds()).toBe(60);
    process.env.MFA_CACHE_SECONDS = '3600';
    expect(config.mfaCacheSeconds()).toBe(60);
    process.env.MFA_CACHE_SECONDS = '0.5';
    expect(config.mfaCacheSeconds()).toBe(0.5);
    process.env.MFA_CACHE_SECONDS = '-5';
    expect(config.mfaCacheSeconds()).toBe(0);
  });

  it('live owners and admins must use it; nobody in the sandbox', () => {
    expect(mfaRequiredRoles('live')).toEqual(['owner', 'admin']);
    expect(mfaRequiredRoles('sandbox')).toEqual([]);
  });
});
