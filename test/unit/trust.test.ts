import { describe, expect, it } from 'vitest';
import {
  NEW_MERCHANT_TRUST,
  TRUST_LEVELS,
  canCreateRecurring,
  canGrantTrustLevel,
  canReceiveApproveRecurring,
  canUseDeviceLookup,
  deviceLookupPermission,
  isTrustLevel,
  levelAtLeast,
  meetsTrustLevel,
  trustOf,
  trustRank,
  type TrustLevel,
  type TrustState,
} from '../../functions/domain/trust';

const state = (trusted: boolean, trustLevel: TrustLevel, deviceLookupEnabled = false): TrustState => ({
  trusted,
  trustLevel,
  deviceLookupEnabled,
});

describe('trust levels', () => {
  it('orders basic < enhanced < premium', () => {
    expect(TRUST_LEVELS).toEqual(['basic', 'enhanced', 'premium']);
    expect(trustRank('basic')).toBeLessThan(trustRank('enhanced'));
    expect(trustRank('enhanced')).toBeLessThan(trustRank('premium'));
  });

  it.each([
    ['basic', 'basic', true],
    ['basic', 'enhanced', false],
    ['basic', 'premium', false],
    ['enhanced', 'basic', true],
    ['enhanced', 'enhanced', true],
    ['enhanced', 'premium', false],
    ['premium', 'basic', true],
    ['premium', 'enhanced', true],
    ['premium', 'premium', true],
  ] as const)('%s is at least %s: %s', (level, required, expected) => {
    expect(levelAtLeast(level, required)).toBe(expected);
  });

  it('recognises only the three levels', () => {
    for (const l of TRUST_LEVELS) expect(isTrustLevel(l)).toBe(true);
    for (const v of ['gold', 'Basic', '', ' basic', null, undefined, 1, {}]) expect(isTrustLevel(v)).toBe(false);
  });
});

describe('trustOf', () => {
  it('reads a stored record', () => {
    expect(trustOf({ trusted: true, trustLevel: 'premium', deviceLookupEnabled: true })).toEqual(state(true, 'premium', true));
  });

  it('falls back to the new-merchant defaults, never to more trust', () => {
    expect(trustOf({})).toEqual(NEW_MERCHANT_TRUST);
    expect(NEW_MERCHANT_TRUST).toEqual(state(false, 'basic', false));
    expect(trustOf({ trusted: 'true', trustLevel: 'gold', deviceLookupEnabled: 1 })).toEqual(state(false, 'basic', false));
  });
});

describe('granting a level (provider maxTrustLevel)', () => {
  it('defaults to enhanced', () => {
    expect(canGrantTrustLevel('basic', undefined)).toBe(true);
    expect(canGrantTrustLevel('enhanced', undefined)).toBe(true);
    expect(canGrantTrustLevel('premium', undefined)).toBe(false);
  });

  it('follows the raised or lowered ceiling', () => {
    expect(canGrantTrustLevel('premium', 'premium')).toBe(true);
    expect(canGrantTrustLevel('enhanced', 'basic')).toBe(false);
    expect(canGrantTrustLevel('basic', 'basic')).toBe(true);
  });
});

describe('device lookup permission', () => {
  it.each([
    [state(false, 'basic'), false],
    [state(false, 'enhanced'), false],
    [state(false, 'premium'), false],
    [state(true, 'basic'), false],
    [state(true, 'enhanced'), true],
    [state(true, 'premium'), true],
    [state(false, 'basic', true), true],
    [state(true, 'basic', true), true],
    [state(false, 'premium', true), true],
  ])('%o -> allowed %s', (t, allowed) => {
    const p = deviceLookupPermission(t);
    expect(p.allowed).toBe(allowed);
    expect(canUseDeviceLookup(t)).toBe(allowed);
    expect(p.reason).toMatch(/^[A-Z].+[a-z]$/);
  });

  it('explains the reason', () => {
    expect(deviceLookupPermission(state(false, 'basic', true)).reason).toMatch(/explicitly enabled/);
    expect(deviceLookupPermission(state(true, 'premium')).reason).toMatch(/premium/);
    expect(deviceLookupPermission(state(false, 'premium')).reason).toMatch(/not trusted/);
    expect(deviceLookupPermission(state(true, 'basic')).reason).toMatch(/basic does not include device lookup/);
  });
});

describe('approve_recurring and recurring create', () => {
  it('approve_recurring needs a trusted merchant, at any level', () => {
    for (const l of TRUST_LEVELS) {
      expect(canReceiveApproveRecurring(state(true, l))).toBe(true);
      expect(canReceiveApproveRecurring(state(false, l, true))).toBe(false);
    }
  });

  it('recurring create needs trusted and premium', () => {
    expect(canCreateRecurring(state(true, 'premium'))).toBe(true);
    expect(canCreateRecurring(state(false, 'premium', true))).toBe(false);
    expect(canCreateRecurring(state(true, 'enhanced', true))).toBe(false);
    expect(canCreateRecurring(state(true, 'basic'))).toBe(false);
  });
});

describe('meetsTrustLevel (validate)', () => {
  it('is valid when trusted and at least the required level', () => {
    expect(meetsTrustLevel(state(true, 'enhanced'), 'basic')).toBe(true);
    expect(meetsTrustLevel(state(true, 'enhanced'), 'enhanced')).toBe(true);
    expect(meetsTrustLevel(state(true, 'enhanced'), 'premium')).toBe(false);
  });

  it('an untrusted merchant meets no level, not even its own', () => {
    for (const l of TRUST_LEVELS) expect(meetsTrustLevel(state(false, 'premium', true), l)).toBe(false);
    expect(meetsTrustLevel(state(false, 'basic'), 'basic')).toBe(false);
  });
});
