/**
 * Discovery budgets (DESIGN 10.5): how many customer look-ups (`GET /v1/customer/banks`,
 * `POST /v1/customer/device/lookup`) a merchant may make per Lagos day, and how many of them
 * may find no customer. Pure: the limits a merchant has, whether the next look-up is refused,
 * whether a count has reached a limit, and when the budget is whole again. The counting
 * (batched per instance, no write per look-up) is customers/discovery-store.ts.
 */
import { endOfLagosDay, lagosDate } from './lagos-time';

/** The bounds of a limit a provider sets (`discoveryDailyLimit`, `discoveryMissLimit`). */
export const DISCOVERY_LIMIT_MIN = 1;
export const DISCOVERY_LIMIT_MAX = 100_000;

/** A merchant's limits per Lagos day. */
export interface DiscoveryLimits {
  /** Look-ups (found or not). */
  daily: number;
  /** Look-ups that found no customer. */
  misses: number;
}

/** What a merchant has used of a Lagos day. */
export interface DiscoveryCount {
  lookups: number;
  misses: number;
}

export type DiscoveryLimitName = 'lookups' | 'misses';

const isLimit = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= DISCOVERY_LIMIT_MIN && v <= DISCOVERY_LIMIT_MAX;

/** The limits of a merchant item: its provider's setting, else the deployment's defaults. */
export function discoveryLimitsOf(
  m: { discoveryDailyLimit?: unknown; discoveryMissLimit?: unknown } | undefined,
  defaults: DiscoveryLimits,
): DiscoveryLimits {
  return {
    daily: isLimit(m?.discoveryDailyLimit) ? m.discoveryDailyLimit : defaults.daily,
    misses: isLimit(m?.discoveryMissLimit) ? m.discoveryMissLimit : defaults.misses,
  };
}

/**
 * The limit a count has reached (`lookups` first), or undefined: a merchant that has made
 * `daily` look-ups, or had `misses` of them find nobody, gets no more that day (the next one is
 * refused whatever it would find: its outcome is not known before it is made).
 */
export function reachedLimit(count: DiscoveryCount, limits: DiscoveryLimits): DiscoveryLimitName | undefined {
  if (count.lookups >= limits.daily) return 'lookups';
  if (count.misses >= limits.misses) return 'misses';
  return undefined;
}

/**
 * Whether a count is close enough to a limit (within `margin` look-ups) that an instance should
 * read and write the shared count on every look-up instead of batching it.
 */
export const nearLimit = (count: DiscoveryCount, limits: DiscoveryLimits, margin: number): boolean =>
  count.lookups + margin >= limits.daily || count.misses + margin >= limits.misses;

/** The merchant's discovery day: the Lagos date of `now`. */
export const discoveryDay = (now: Date): string => lagosDate(now);

/** When the budget of `now`'s Lagos day is whole again: the next Lagos midnight. */
export const discoveryResetAt = (now: Date): Date => endOfLagosDay(lagosDate(now));

/** `Retry-After` of a refusal at `now`: whole seconds to the next Lagos midnight (at least 1). */
export const secondsToReset = (now: Date): number => Math.max(1, Math.ceil((discoveryResetAt(now).getTime() - now.getTime()) / 1000));
