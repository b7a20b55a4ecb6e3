/**
 * Merchant trust rules (spec "Trust levels", DESIGN 6.5 and 6.9) in ONE place. Pure
 * functions: every feature that depends on a merchant's trust (provider trust endpoints,
 * device lookup, intent-response approve_recurring, recurring create) imports them, so a
 * trust change applies everywhere at once (the state is read per request, never cached).
 */

/** Trust levels in ascending order: basic < enhanced < premium. */
export const TRUST_LEVELS = ['basic', 'enhanced', 'premium'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

/** The provider's ceiling when the operator has not set one (DESIGN 6.1). */
export const DEFAULT_MAX_TRUST_LEVEL: TrustLevel = 'enhanced';

/** A merchant's trust state (DESIGN 6.9 defaults for a new merchant: untrusted, basic, no device lookup). */
export interface TrustState {
  trusted: boolean;
  trustLevel: TrustLevel;
  deviceLookupEnabled: boolean;
}

export const NEW_MERCHANT_TRUST: Readonly<TrustState> = Object.freeze({
  trusted: false,
  trustLevel: 'basic',
  deviceLookupEnabled: false,
});

export const isTrustLevel = (v: unknown): v is TrustLevel => typeof v === 'string' && (TRUST_LEVELS as readonly string[]).includes(v);

/** Position of a level in the order (basic 0, enhanced 1, premium 2). */
export const trustRank = (level: TrustLevel): number => TRUST_LEVELS.indexOf(level);

/** `level` is at least `required` in the order basic < enhanced < premium. */
export const levelAtLeast = (level: TrustLevel, required: TrustLevel): boolean => trustRank(level) >= trustRank(required);

/**
 * The trust state of a stored record (a merchant participant item, or any object with
 * `trusted`, `trustLevel`, `deviceLookupEnabled`), with the new-merchant defaults for
 * missing or malformed attributes (never more trust than the record states).
 */
export function trustOf(stored: object): TrustState {
  const record = stored as { trusted?: unknown; trustLevel?: unknown; deviceLookupEnabled?: unknown };
  return {
    trusted: record.trusted === true,
    trustLevel: isTrustLevel(record.trustLevel) ? record.trustLevel : NEW_MERCHANT_TRUST.trustLevel,
    deviceLookupEnabled: record.deviceLookupEnabled === true,
  };
}

/** A provider may grant `level` only up to its maxTrustLevel (default enhanced). */
export function canGrantTrustLevel(level: TrustLevel, providerMaxTrustLevel: TrustLevel | undefined): boolean {
  return levelAtLeast(providerMaxTrustLevel ?? DEFAULT_MAX_TRUST_LEVEL, level);
}

/**
 * Device lookup is allowed when deviceLookupEnabled, or when the merchant is trusted with
 * enhanced or premium (DESIGN 6.9). `reason` is a sentence for people.
 */
export function deviceLookupPermission(t: TrustState): { allowed: boolean; reason: string } {
  if (t.deviceLookupEnabled) {
    return { allowed: true, reason: 'Device lookup is explicitly enabled for this merchant' };
  }
  if (t.trusted && levelAtLeast(t.trustLevel, 'enhanced')) {
    return { allowed: true, reason: `Merchant is trusted with ${t.trustLevel} trust level, which includes device lookup` };
  }
  if (!t.trusted) {
    return { allowed: false, reason: 'Merchant is not trusted and device lookup is not enabled for it' };
  }
  return {
    allowed: false,
    reason: `Merchant trust level ${t.trustLevel} does not include device lookup (enhanced or premium required) and device lookup is not enabled for it`,
  };
}

export const canUseDeviceLookup = (t: TrustState): boolean => deviceLookupPermission(t).allowed;

/** A customer may give an approve_recurring decision only to a trusted merchant (DESIGN 6.5). */
export const canReceiveApproveRecurring = (t: TrustState): boolean => t.trusted;

/** Creating a recurring schedule needs a trusted merchant with premium trust (DESIGN 6.5). */
export const canCreateRecurring = (t: TrustState): boolean => t.trusted && t.trustLevel === 'premium';

/**
 * `POST /v1/provider/merchant/trust/validate`: the merchant meets `required` when it is
 * trusted AND its level is at least `required`. An untrusted merchant meets no level
 * (its level grants nothing while it is not trusted; see docs/decisions/merchant-trust.md).
 */
export const meetsTrustLevel = (t: TrustState, required: TrustLevel): boolean => t.trusted && levelAtLeast(t.trustLevel, required);
