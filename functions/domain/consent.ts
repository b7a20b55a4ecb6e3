/**
 * Consent terms of a customer decision (DESIGN 8.5): validity, a yearly limit (Lagos calendar
 * year), a payment count, and what is kept for the record (channel, customerAcceptedAt). Pure:
 * the checks, the counters' attribute names and the `remaining` view. The store keeps the
 * terms on the decision item and the year and payment counters ON THE DECISION ITEM too
 * (`paymentsUsed`, `usedY<yyyy>`), counted by an agreement or recurring billing in its
 * transaction while the decision HAS such a term (`maxPayments` or a yearly limit;
 * a decision without them is only condition-checked, not rewritten with its GSI copies), so
 * the item's condition makes the count atomic with the billing (no overspend, no extra
 * payment under concurrency). A term counts the billings made while it is set. A declined,
 * expired or failed billing gives back what it counted (`consentCounted` on the billing).
 */
import type { UsedAmounts } from './limits';
import type { SpendingLimits } from './decisions';
import { periodKeys } from './lagos-time';

export const CONSENT_CHANNELS = ['app', 'ussd', 'web', 'branch'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];

/** The terms a bank gives with a decision; null = not set. Instants are ISO strings. */
export interface ConsentTerms {
  validFrom: string | null;
  validTo: string | null;
  maxPayments: number | null;
  channel: ConsentChannel | null;
  customerAcceptedAt: string | null;
}

export const NO_TERMS: ConsentTerms = { validFrom: null, validTo: null, maxPayments: null, channel: null, customerAcceptedAt: null };

/** The counters a decision item keeps (missing = 0). */
export const PAYMENTS_USED = 'paymentsUsed';
/** The year's used amount (minor units) on the decision item: `usedY2027`. */
export const yearAttribute = (year: string) => `usedY${year}`;

/**
 * Whether billings under a decision count themselves in its consent counters: only while it
 * has a term they enforce (`maxPayments` or a yearly limit; otherwise the decision
 * is only condition-checked by a billing, not rewritten).
 */
export const countsConsent = (d: { maxPayments?: number | null; spendingLimits: { yearly?: number | null } }): boolean =>
  d.maxPayments != null || d.spendingLimits.yearly != null;
/** The Lagos calendar year of an instant (`2027`): 2026-12-31T23:00:00Z is already 2027 in Lagos. */
export const lagosYear = (instant: Date): string => periodKeys(instant).month.slice(0, 4);

/**
 * Whether the terms allow a billing at `now`: validFrom <= now <= validTo, both inclusive to
 * the millisecond (a billing at validTo exactly passes, one millisecond later does not).
 */
export function validAt(t: Pick<ConsentTerms, 'validFrom' | 'validTo'>, now: Date): boolean {
  const at = now.getTime();
  if (t.validFrom && at < Date.parse(t.validFrom)) return false;
  if (t.validTo && at > Date.parse(t.validTo)) return false;
  return true;
}

export type ConsentRefusal = 'not_valid' | 'no_payments_left' | 'limits';

export interface ConsentUsage {
  /** Billings counted under the decision (succeeded + in flight). */
  payments: number;
  /** Amount counted in the current Lagos year (minor units). */
  year: number;
}

/** The usage counters of a decision item at `now`. */
export function usageOf(item: Record<string, unknown> | undefined, now: Date): ConsentUsage {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { payments: num(item?.[PAYMENTS_USED]), year: num(item?.[yearAttribute(lagosYear(now))]) };
}

/**
 * Why the terms refuse a billing of `amount` at `now`, in this order: outside validity, no
 * payment left, the yearly limit. undefined = allowed (the other limits are domain/limits.ts).
 */
export function consentRefusal(
  t: Pick<ConsentTerms, 'validFrom' | 'validTo' | 'maxPayments'>,
  yearly: number | undefined,
  amount: number,
  used: ConsentUsage,
  now: Date,
): ConsentRefusal | undefined {
  if (!validAt(t, now)) return 'not_valid';
  if (t.maxPayments != null && used.payments >= t.maxPayments) return 'no_payments_left';
  if (yearly != null && used.year + amount > yearly) return 'limits';
  return undefined;
}

/** What is left of each limit in the current periods (minor units), null = no limit. */
export interface Remaining {
  single: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
  yearly: number | null;
  payments: number | null;
}

/**
 * `remaining` of a decision (DESIGN 8.5): each limit minus what the current Lagos period used
 * (never below 0), the payments left; null where there is no limit. Computed from the same
 * counters the billing checks, so "remaining >= amount" is exactly "a billing of amount fits"
 * (given no concurrent billing).
 */
export function remainingOf(
  limits: SpendingLimits,
  maxPayments: number | null,
  used: Required<UsedAmounts>,
  usage: ConsentUsage,
): Remaining {
  const left = (limit: number | undefined, spent: number) => (limit === undefined ? null : Math.max(0, limit - spent));
  return {
    single: limits.single ?? null,
    daily: left(limits.daily, used.day),
    weekly: left(limits.weekly, used.week),
    monthly: left(limits.monthly, used.month),
    yearly: left(limits.yearly, usage.year),
    payments: maxPayments == null ? null : Math.max(0, maxPayments - usage.payments),
  };
}
