/** The JSON body nesting bound (DESIGN 9.2): counted without recursion, arrays and objects alike. */
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../functions/http/validation';

const arrays = (levels: number): unknown => (levels === 0 ? 1 : [arrays(levels - 1)]);

describe('nestsDeeperThan', () => {
  it('scalars and null nest 0 levels; {} and [] nest 1', () => {
    for (const v of [1, 'x', null, true]) expect(nestsDeeperThan(v, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan([], 1)).toBe(false);
  });

  it('exactly the bound passes, one more is refused, objects and arrays mixed', () => {
    expect(nestsDeeperThan(arrays(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeperThan(arrays(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
    expect(nestsDeeperThan({ a: { b: [1, { c: [] }] } }, 5)).toBe(false);
    expect(nestsDeeperThan({ a: { b: [1, { c: [[]] }] } }, 5)).toBe(true);
  });

  it('the deepest branch counts, wherever it is', () => {
    expect(nestsDeeperThan({ shallow: 1, list: [{}, {}, { deep: arrays(3) }] }, 5)).toBe(true);
    expect(nestsDeeperThan({ shallow: 1, list: [{}, {}, { deep: arrays(2) }] }, 5)).toBe(false);
  });

  it('200,000 levels: answered without overflowing the stack', () => {
    const v = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown;
    expect(nestsDeeperThan(v, MAX_BODY_DEPTH)).toBe(true);
  });
});
