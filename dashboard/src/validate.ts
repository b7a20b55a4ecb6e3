/**
 * The checks the sign-in forms make before they send (Cognito then gives its own reason for
 * anything else). The password rules are the pool's own (functions/identity/pool.ts).
 */
import { USER_POOL } from '../../functions/identity/pool';

const p = USER_POOL.passwordPolicy;

export const PASSWORD_RULES = `At least ${p.minLength} characters, with upper and lower case letters, a digit and a symbol.`;

export function emailProblem(value: string): string | undefined {
  if (!value) return 'Enter your e-mail address.';
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : 'Enter an e-mail address like name@example.com.';
}

/** A new password against the pool's policy (an existing one is only checked for presence). */
export function newPasswordProblem(value: string): string | undefined {
  const missing = [
    value.length < p.minLength && `${p.minLength} characters`,
    p.requireUppercase && !/[A-Z]/.test(value) && 'an upper case letter',
    p.requireLowercase && !/[a-z]/.test(value) && 'a lower case letter',
    p.requireDigits && !/[0-9]/.test(value) && 'a digit',
    p.requireSymbols && !/[^A-Za-z0-9]/.test(value) && 'a symbol',
  ].filter((x): x is string => Boolean(x));
  if (!value) return 'Choose a password.';
  return missing.length ? `The password needs at least ${missing.join(', ')}.` : undefined;
}

export const passwordProblem = (value: string) => (value ? undefined : 'Enter your password.');

/** The 6-digit codes: e-mailed confirmation and reset codes, and the authenticator app's. */
export const codeProblem = (value: string) => (/^\d{6}$/.test(value) ? undefined : 'Enter the 6-digit code.');

/**
 * A refund amount typed into the form (major units, at most 2 decimals; empty: the whole of
 * `left`): the reason it is refused, under the field (DESIGN 10.7), before any dialog opens.
 */
export function refundAmountProblem(value: string, left: number, formatted: string): string | undefined {
  if (value === '') return undefined;
  const ok = /^\d+(\.\d{1,2})?$/.test(value) && Number(value) > 0 && Math.round(Number(value) * 100) <= Math.round(left * 100);
  return ok ? undefined : `Enter an amount up to ${formatted}.`;
}
