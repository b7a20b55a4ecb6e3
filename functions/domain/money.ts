/**
 * Money rules (DESIGN 5, 6.9 "Whole-body errors" and "Formats"). Pure functions.
 *
 * Outside (JSON): numbers in major units with at most 2 decimals (NGN 1500.5 = 1,500 naira
 * 50 kobo). Inside: integer minor units (kobo). Conversion never trusts `amount * 100`:
 * 19.99 * 100 === 1998.9999999999998 and 0.29 * 100 === 28.999999999999996. Instead the
 * number's shortest round-trip decimal text (`String(amount)`, which is what JSON.parse
 * read) is parsed digit by digit, so a value has "at most 2 decimals" exactly when its
 * decimal text has at most 2 decimals.
 */

/** Currencies accepted today (spec rule 10). */
export const SUPPORTED_CURRENCIES = ['NGN'] as const;
export type SupportedCurrency = (typeof SUPPORTED_CURRENCIES)[number];

/** A well-formed currency code. `ngn` fails it (400 Invalid request parameters). */
export const CURRENCY_FORMAT = /^[A-Z]{3}$/;

/** Minor units per major unit (kobo per naira). */
export const MINOR_PER_MAJOR = 100;

/** Minimum amount of a billing or payment: NGN 1.00 (spec Limits). */
export const MIN_AMOUNT_MINOR = 100;

/**
 * Maximum amount of one billing, payment or refund: NGN 100,000,000.00 (1e10 kobo).
 * Our cap (the spec shows none): far above any retail billing, it keeps every sum of a
 * realistic number of amounts (ledger totals, period counters) exact in a double, and
 * rejects absurd values (1e21) as bad input instead of letting them reach the ledger.
 */
export const MAX_AMOUNT_MINOR = 10_000_000_000;

/** Digits of a non-negative number with at most 2 decimals, in plain (non-exponent) notation. */
const TWO_DECIMALS = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Major units -> integer minor units. `undefined` when the value is not a finite number,
 * is negative (including -0), has more than 2 decimals (0.1 + 0.2, 1.005) or is too large
 * to be represented exactly (1e21). No minimum or maximum here: see `amountProblem`.
 */
export function toMinor(amount: number): number | undefined {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || Object.is(amount, -0)) {
    return undefined;
  }
  // Shortest round-trip text: 1500.5 -> "1500.5", 0.1 + 0.2 -> "0.30000000000000004",
  // 1e21 -> "1e+21", 1e-7 -> "1e-7" (exponent notation never matches).
  const m = TWO_DECIMALS.exec(String(amount));
  if (!m) return undefined;
  const whole = Number(m[1]);
  const cents = Number((m[2] ?? '').padEnd(2, '0'));
  const minor = whole * MINOR_PER_MAJOR + cents;
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/**
 * Integer minor units -> major units (the JSON number). Division by 100 is correctly
 * rounded, so 1999 -> 19.99 prints as "19.99". Throws on a non-integer (a programming error).
 */
export function toMajor(minor: number): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${minor}`);
  return minor / MINOR_PER_MAJOR + 0; // + 0 turns -0 into 0
}

/** Human-readable amount for logs and docs: `formatMinor(150050)` -> "NGN 1,500.50". */
export function formatMinor(minor: number, currency: string = 'NGN'): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${minor}`);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const whole = String(Math.floor(abs / MINOR_PER_MAJOR)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = String(abs % MINOR_PER_MAJOR).padStart(2, '0');
  return `${sign}${currency} ${whole}.${cents}`;
}

export const isWellFormedCurrency = (code: unknown): code is string => typeof code === 'string' && CURRENCY_FORMAT.test(code);

/** A well-formed code we can process today. A well-formed other code is 400 `Unsupported currency`. */
export const isSupportedCurrency = (code: string): code is SupportedCurrency => (SUPPORTED_CURRENCIES as readonly string[]).includes(code);

export interface AmountBounds {
  /** Smallest accepted amount in minor units (default MIN_AMOUNT_MINOR). */
  minMinor?: number;
  /** Largest accepted amount in minor units (default MAX_AMOUNT_MINOR). */
  maxMinor?: number;
}

/**
 * Why a major-unit amount is not acceptable, or `undefined` when it is. Sentences for the
 * validation `errors[].message`.
 */
export function amountProblem(amount: number, bounds: AmountBounds = {}): string | undefined {
  const min = bounds.minMinor ?? MIN_AMOUNT_MINOR;
  const max = bounds.maxMinor ?? MAX_AMOUNT_MINOR;
  const minor = toMinor(amount);
  if (minor === undefined) {
    if (amount < 0 || Object.is(amount, -0)) return 'must not be negative';
    return 'must be a number with at most 2 decimals';
  }
  if (minor < min) return `must be at least ${toMajor(min).toFixed(2)}`;
  if (minor > max) return `must be at most ${toMajor(max).toFixed(2)}`;
  return undefined;
}
