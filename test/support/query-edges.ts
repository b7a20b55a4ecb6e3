/**
 * Query parameters at their edges, for the reliability fuzz suite (test/reliability/fuzz.test.ts;
 * DESIGN 9.2, 10.3: no query parameter reaches a 5xx). Kept beside test/support/fuzz.ts, which
 * holds the suite's other arbitraries.
 */
import fc from 'fast-check';

/**
 * A query parameter's edges (DESIGN 9.2, 10.3): empty, negative, fractional, past a safe
 * integer and past a double, dates at and beyond the 2000-01-01 to 2099-12-31 range (the
 * calendar's first and last days too), instants with extreme offsets, and a long value.
 */
export const QUERY_EDGES = [
  '',
  ' ',
  '-1',
  '0',
  '1.5',
  '1e309',
  '9007199254740993',
  '99999999999999999999',
  '9999-12-31',
  '0001-01-01',
  '2099-12-31',
  '2100-01-01',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '2000-01-01T00:00:00-23:59',
  'x'.repeat(1_000),
] as const;

/**
 * Queries at the edges of `keys` on top of a valid `example` (so that each edge reaches as far
 * as it can): every key at every edge alone, and every key at the same edge at once.
 */
export function edgeQueries(keys: string[], example: Record<string, string> = {}): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const edge of QUERY_EDGES) {
    for (const k of keys) out.push({ ...example, [k]: edge });
    if (keys.length > 1) out.push({ ...example, ...Object.fromEntries(keys.map((k) => [k, edge])) });
  }
  return out;
}

/** Random mixes of edges: each key absent, at an edge, or repeated (two edges, which API Gateway joins with a comma). */
export function edgeQueryArbitrary(keys: string[], example: Record<string, string> = {}): fc.Arbitrary<Record<string, string | string[]>> {
  const edge = fc.constantFrom(...QUERY_EDGES);
  const value = fc.oneof({ arbitrary: edge, weight: 3 }, { arbitrary: fc.tuple(edge, edge).map(([a, b]) => [a, b]), weight: 1 });
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), value), { minLength: 1, maxLength: keys.length + 1 })
    .map((entries) => ({ ...example, ...Object.fromEntries(entries) }));
}
