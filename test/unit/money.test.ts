import { describe, expect, it } from 'vitest';
import {
  CURRENCY_FORMAT,
  MAX_AMOUNT_MINOR,
  MIN_AMOUNT_MINOR,
  SUPPORTED_CURRENCIES,
  amountProblem,
  formatMinor,
  isSupportedCurrency,
  isWellFormedCurrency,
  toMajor,
  toMinor,
} from '../../functions/domain/money';
import { amountSchema, currencySchema, majorAmount } from '../../functions/http/money-schemas';

describe('toMinor', () => {
  it.each([
    [0, 0],
    [1, 100],
    [1.0, 100],
    [0.99, 99],
    [0.01, 1],
    [0.1, 10],
    [0.29, 29], // 0.29 * 100 === 28.999999999999996
    [19.99, 1999], // 19.99 * 100 === 1998.9999999999998
    [1500.5, 150050],
    [1.15, 115], // 1.15 * 100 === 114.99999999999999
    [4.35, 435], // 4.35 * 100 === 434.99999999999994
    [1234567.89, 123456789],
    [100_000_000, 10_000_000_000],
  ])('%d -> %d kobo', (major, minor) => {
    expect(toMinor(major)).toBe(minor);
  });

  it('reads JSON numbers as the client wrote them', () => {
    expect(toMinor(JSON.parse('1500.50'))).toBe(150050);
    expect(toMinor(JSON.parse('1.10'))).toBe(110);
    expect(toMinor(JSON.parse('2e2'))).toBe(20000);
  });

  it.each([
    ['0.1 + 0.2 (0.30000000000000004: more than 2 decimals)', 0.1 + 0.2],
    ['1.005', 1.005],
    ['0.001', 0.001],
    ['1e-7 (exponent notation)', 1e-7],
    ['negative', -1],
    ['negative with decimals', -0.5],
    ['-0', -0],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['1e21 (exponent notation, not exact)', 1e21],
    ['1e20 (beyond exact integers in kobo)', 1e20],
  ])('rejects %s', (_label, value) => {
    expect(toMinor(value)).toBeUndefined();
  });

  it('rejects values that are not numbers at run time', () => {
    expect(toMinor('10' as unknown as number)).toBeUndefined();
    expect(toMinor(null as unknown as number)).toBeUndefined();
  });

  it('round-trips every kobo value from 0 to 1,000.00 and some large ones', () => {
    const mismatches: number[] = [];
    for (let minor = 0; minor <= 100_000; minor++) {
      if (toMinor(toMajor(minor)) !== minor) mismatches.push(minor);
    }
    expect(mismatches).toEqual([]);
    for (const minor of [MAX_AMOUNT_MINOR, MAX_AMOUNT_MINOR - 1, 999_999_999_999, 123_456_789_012]) {
      expect(toMinor(toMajor(minor))).toBe(minor);
    }
  });
});

describe('toMajor', () => {
  it('prints as the shortest decimal', () => {
    expect(toMajor(1999)).toBe(19.99);
    expect(JSON.stringify(toMajor(1999))).toBe('19.99');
    expect(JSON.stringify(toMajor(150050))).toBe('1500.5');
    expect(JSON.stringify(toMajor(29))).toBe('0.29');
    expect(JSON.stringify(toMajor(100))).toBe('1');
    expect(Object.is(toMajor(0), 0)).toBe(true);
    expect(Object.is(toMajor(-0), 0)).toBe(true);
  });

  it('throws on non-integers', () => {
    expect(() => toMajor(1.5)).toThrow(RangeError);
    expect(() => toMajor(Number.NaN)).toThrow(RangeError);
  });
});

describe('formatMinor', () => {
  it('groups thousands and always shows 2 decimals', () => {
    expect(formatMinor(150050)).toBe('NGN 1,500.50');
    expect(formatMinor(100)).toBe('NGN 1.00');
    expect(formatMinor(5)).toBe('NGN 0.05');
    expect(formatMinor(0)).toBe('NGN 0.00');
    expect(formatMinor(MAX_AMOUNT_MINOR)).toBe('NGN 100,000,000.00');
    expect(formatMinor(-123456)).toBe('-NGN 1,234.56');
    expect(formatMinor(1999, 'USD')).toBe('USD 19.99');
  });
});

describe('bounds', () => {
  it('minimum is NGN 1.00 and the cap NGN 100,000,000.00', () => {
    expect(MIN_AMOUNT_MINOR).toBe(100);
    expect(MAX_AMOUNT_MINOR).toBe(toMinor(100_000_000));
  });

  it.each([
    [1, undefined],
    [0.99, 'must be at least 1.00'],
    [0, 'must be at least 1.00'],
    [-5, 'must not be negative'],
    [-0, 'must not be negative'],
    [1.005, 'must be a number with at most 2 decimals'],
    [Number.NaN, 'must be a number with at most 2 decimals'],
    [100_000_000, undefined],
    [100_000_000.01, 'must be at most 100000000.00'],
  ])('amountProblem(%d) = %s', (amount, problem) => {
    expect(amountProblem(amount)).toBe(problem);
  });
});

describe('amountSchema', () => {
  const parse = (v: unknown) => amountSchema.safeParse(v);

  it.each([
    [1, 100],
    [1.0, 100],
    [1500.5, 150050],
    [19.99, 1999],
    [1.29, 129],
    [100_000_000, MAX_AMOUNT_MINOR],
  ])('accepts %d as %d kobo', (major, minor) => {
    const r = parse(major);
    expect(r.success).toBe(true);
    expect(r.data).toBe(minor);
  });

  it.each([
    ['0.99 (below NGN 1.00)', 0.99],
    ['0', 0],
    ['negative', -10],
    ['0.1 + 0.2', 0.1 + 0.2],
    ['1.005', 1.005],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['above the cap', 100_000_000.01],
    ['1e21', 1e21],
    ['a string "10.00"', '10.00'],
    ['a string "10"', '10'],
    ['null', null],
    ['a boolean', true],
    ['missing', undefined],
  ])('rejects %s', (_label, value) => {
    const r = parse(value);
    expect(r.success).toBe(false);
  });

  it('explains the problem in the issue message', () => {
    const r = parse(0.5);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('must be at least 1.00');
    const r2 = parse(1.234);
    expect(r2.error?.issues[0]?.message).toBe('must be a number with at most 2 decimals');
  });

  it('majorAmount takes other bounds (spending limits may be 0)', () => {
    const limit = majorAmount({ minMinor: 0 });
    expect(limit.safeParse(0).data).toBe(0);
    expect(limit.safeParse(0.5).data).toBe(50);
    expect(limit.safeParse(-1).success).toBe(false);
  });
});

describe('currency', () => {
  it('NGN is the only supported currency today', () => {
    expect(SUPPORTED_CURRENCIES).toEqual(['NGN']);
    expect(isSupportedCurrency('NGN')).toBe(true);
    expect(isSupportedCurrency('USD')).toBe(false);
    expect(isSupportedCurrency('ngn')).toBe(false);
  });

  it.each(['NGN', 'USD', 'GBP', 'XOF'])('schema accepts well-formed %s (supported or not)', (code) => {
    expect(currencySchema.safeParse(code).success).toBe(true);
    expect(isWellFormedCurrency(code)).toBe(true);
  });

  it.each(['ngn', 'Ngn', 'NG', 'NGNN', 'USDT', ' NGN', 'NGN ', 'N1N', '', 566, null])(
    'schema rejects %j (400 Invalid request parameters)',
    (code) => {
      expect(currencySchema.safeParse(code).success).toBe(false);
      expect(isWellFormedCurrency(code)).toBe(false);
    },
  );

  it('well-formed but unsupported is a separate answer (400 Unsupported currency)', () => {
    const code = currencySchema.parse('USD');
    expect(CURRENCY_FORMAT.test(code)).toBe(true);
    expect(isSupportedCurrency(code)).toBe(false);
  });
});
