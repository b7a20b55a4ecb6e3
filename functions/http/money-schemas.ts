/**
 * zod schemas of money fields in request bodies (the rules are domain/money.ts). Kept out of
 * domain/money.ts so that modules needing only the rules (every read handler showing an
 * amount) do not bundle zod and build these schemas at cold start.
 */
import * as z from 'zod';
import { CURRENCY_FORMAT, SUPPORTED_CURRENCIES, amountProblem, toMinor, type AmountBounds } from '../domain/money';

/**
 * zod schema factory: a JSON number in major units within the bounds -> integer minor units.
 * Strings ("10.00"), NaN, Infinity, more than 2 decimals and out-of-bounds values fail.
 * The spending-limit fields can use `majorAmount({ minMinor: 0 })`.
 */
export const majorAmount = (bounds: AmountBounds = {}) =>
  z.number().transform((amount, ctx) => {
    const problem = amountProblem(amount, bounds);
    if (problem !== undefined) {
      ctx.issues.push({ code: 'custom', message: problem, input: amount });
      return z.NEVER;
    }
    return toMinor(amount) as number;
  });

/** A billing/payment amount: number, ≤ 2 decimals, NGN 1.00 .. MAX_AMOUNT -> minor units. */
export const amountSchema = majorAmount();

/**
 * A well-formed currency code (`^[A-Z]{3}$`). Supported-ness is a separate check
 * (`isSupportedCurrency`) so the endpoint can answer 400 `Unsupported currency` for `USD`
 * while `ngn` stays 400 `Invalid request parameters`.
 */
export const currencySchema = z
  .string()
  .regex(CURRENCY_FORMAT, 'must be a 3-letter upper-case ISO 4217 code')
  // The document (and so the SDK's types) lists the supported codes: `currency: 'USD'` does not compile.
  .meta({ enum: [...SUPPORTED_CURRENCIES] });
