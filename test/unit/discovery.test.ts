import { describe, expect, it } from 'vitest';
import { config } from '../../functions/config';
import {
  discoveryDay,
  discoveryLimitsOf,
  nearLimit,
  reachedLimit,
  secondsToReset,
  DISCOVERY_LIMIT_MAX,
} from '../../functions/domain/discovery';

const defaults = { daily: 1000, misses: 100 };

describe('discovery budgets (DESIGN 10.5)', () => {
  it('the defaults are 1,000 look-ups and 100 misses per Lagos day; a provider’s limits replace them; anything else is the default', () => {
    expect({ daily: config.discoveryDailyLimit(), misses: config.discoveryMissLimit() }).toEqual(defaults);
    expect(discoveryLimitsOf(undefined, defaults)).toEqual(defaults);
    expect(discoveryLimitsOf({ discoveryDailyLimit: 5, discoveryMissLimit: DISCOVERY_LIMIT_MAX }, defaults)).toEqual({
      daily: 5,
      misses: 100_000,
    });
    for (const bad of [0, -1, 2.5, 100_001, '5', null]) {
      expect(discoveryLimitsOf({ discoveryDailyLimit: bad, discoveryMissLimit: bad }, defaults), String(bad)).toEqual(defaults);
    }
  });

  it('a limit is reached at its count (the next look-up is refused), the look-ups first', () => {
    const limits = { daily: 10, misses: 3 };
    expect(reachedLimit({ lookups: 9, misses: 2 }, limits)).toBeUndefined();
    expect(reachedLimit({ lookups: 10, misses: 0 }, limits)).toBe('lookups');
    expect(reachedLimit({ lookups: 5, misses: 3 }, limits)).toBe('misses');
    expect(reachedLimit({ lookups: 10, misses: 3 }, limits)).toBe('lookups');
    expect(nearLimit({ lookups: 0, misses: 0 }, { daily: 1000, misses: 100 }, 10)).toBe(false);
    expect(nearLimit({ lookups: 990, misses: 0 }, { daily: 1000, misses: 100 }, 10)).toBe(true);
    expect(nearLimit({ lookups: 0, misses: 90 }, { daily: 1000, misses: 100 }, 10)).toBe(true);
    expect(nearLimit({ lookups: 0, misses: 89 }, { daily: 1000, misses: 100 }, 10)).toBe(false);
  });

  it('the day is the Lagos day; Retry-After counts whole seconds to the next Lagos midnight', () => {
    expect(discoveryDay(new Date('2026-12-07T22:59:59.999Z'))).toBe('2026-12-07');
    expect(discoveryDay(new Date('2026-12-07T23:00:00.000Z'))).toBe('2026-12-08');
    expect(secondsToReset(new Date('2026-12-07T23:00:00.000Z'))).toBe(86_400);
    expect(secondsToReset(new Date('2026-12-07T22:59:59.000Z'))).toBe(1);
    expect(secondsToReset(new Date('2026-12-07T22:59:59.900Z'))).toBe(1);
    expect(secondsToReset(new Date('2026-12-07T09:00:00.000Z'))).toBe(14 * 3600);
  });
});
