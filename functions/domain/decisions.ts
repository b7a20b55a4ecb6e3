/**
 * Customer decisions (spec rules 4-7, DESIGN 6.5 and 6.9): pure rules in ONE place. The
 * agreement endpoints use them to build and describe decisions; the billing features (bill,
 * pay, recurring) use `billingRefusalFor` / `billingRequiresApproval` so that
 * `deny`, `suspended` and `blockMerchant` stop all billing of a (customer, merchant) pair
 * the moment the decision item says so (the item is read per billing, never cached).
 */
import { createHash } from 'node:crypto';
import { canReceiveApproveRecurring, type TrustState } from './trust';

export const DECISION_VALUES = ['approve_once', 'approve_recurring', 'deny', 'suspended'] as const;
export type DecisionValue = (typeof DECISION_VALUES)[number];

/** `yearly` is a consent term (DESIGN 8.5, Lagos calendar year; domain/consent.ts), the others DESIGN 5. */
export const LIMIT_PERIODS = ['single', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type LimitPeriod = (typeof LIMIT_PERIODS)[number];
/** Spending limits in integer MINOR units (kobo); a missing period has no limit. */
export type SpendingLimits = Partial<Record<LimitPeriod, number>>;

export type CustomerAction = 'approved' | 'declined';

/** What the rules need of a decision. */
export interface DecisionState {
  decision: DecisionValue;
  blockMerchant: boolean;
}

export const isDecisionValue = (v: unknown): v is DecisionValue =>
  typeof v === 'string' && (DECISION_VALUES as readonly string[]).includes(v);

/** approve_once and approve_recurring are approvals; deny and suspended are not. */
export const isApproval = (d: DecisionValue): boolean => d === 'approve_once' || d === 'approve_recurring';

/**
 * DESIGN 6.9 "Decision outcome": `approved` exactly when the decision is an approval and the
 * merchant is not blocked; otherwise `declined`.
 */
export function customerAction(d: DecisionState): CustomerAction {
  return isApproval(d.decision) && !d.blockMerchant ? 'approved' : 'declined';
}

/** Whether the merchant may bill the customer with the agreement at all (limits aside). */
export const billingAllowed = (d: DecisionState | undefined): boolean => d !== undefined && customerAction(d) === 'approved';

/**
 * Why a billing with an agreement phrase is refused, in the precedence of DESIGN 6.9
 * ("Refusal precedence, bill"), limits aside: a blocked merchant first, then no decision
 * (unknown, foreign or tampered phrase) / deny / suspended. undefined = allowed.
 */
export function billingRefusal(d: DecisionState | undefined): 'merchant_blocked' | 'not_approved' | undefined {
  if (d?.blockMerchant) return 'merchant_blocked';
  if (!d || !isApproval(d.decision)) return 'not_approved';
  return undefined;
}

/** The three kinds of billing (store/billing-types.ts `BillingType`). */
export type BillingKind = 'agreement' | 'one_time' | 'recurring';

/**
 * The refusal rules of a billing (DESIGN 6.9 precedence), limits aside:
 *  - agreement (bill): blocked -> merchant_blocked; none / deny / suspended -> not_approved
 *  - one_time (pay, rule 3, independent of the agreement flow): only a block stops it
 *  - recurring (run): as agreement, and the decision must still be approve_recurring
 */
export function billingRefusalFor(kind: BillingKind, d: DecisionState | undefined): 'merchant_blocked' | 'not_approved' | undefined {
  if (d?.blockMerchant) return 'merchant_blocked';
  if (kind === 'one_time') return undefined;
  const refusal = billingRefusal(d);
  if (refusal) return refusal;
  if (kind === 'recurring' && d!.decision !== 'approve_recurring') return 'not_approved';
  return undefined;
}

/**
 * Whether a billing needs the customer's approval (`requiresApproval` of `billing.request`,
 * DESIGN 6.5 and 8.1). A one-time pay always does. A bill or a recurring run does not only
 * under an approve_recurring decision of a merchant that passes the approve_recurring rule
 * NOW (`canReceiveApproveRecurring`, checked again at every billing): a merchant un-trusted
 * after the decision bills it as approve_once, without any decision being rewritten. No
 * trust state known (undefined) counts as not passing: never debit without approval by default.
 */
export function billingRequiresApproval(kind: BillingKind, d: DecisionState | undefined, trust: TrustState | undefined): boolean {
  if (kind === 'one_time') return true;
  return d?.decision !== 'approve_recurring' || trust === undefined || !canReceiveApproveRecurring(trust);
}

/** The decisions a customer may give this merchant: approve_recurring only to a trusted one. */
export function allowedDecisions(trust: TrustState): DecisionValue[] {
  return DECISION_VALUES.filter((d) => decisionAllowedFor(d, trust));
}

export const decisionAllowedFor = (d: DecisionValue, trust: TrustState): boolean =>
  d !== 'approve_recurring' || canReceiveApproveRecurring(trust);

/**
 * The amount (minor units) is within the `single` limit. Period limits (daily, weekly,
 * monthly) need the period's usage and are enforced atomically on the decision item by the
 * billing feature (counters `used_<period>_<periodKey>`).
 */
export const withinSingleLimit = (limits: SpendingLimits, amountMinor: number): boolean =>
  limits.single === undefined || amountMinor <= limits.single;

/**
 * Whether limits allow one payment of `amountMinor` at all (every limit set, of any period, at
 * least that amount): what "limits that allow the new terms" of a schedule's amendment means
 * (DESIGN 8.6). A period's usage is still checked at each run.
 */
export const limitsAllowAmount = (limits: SpendingLimits, amountMinor: number): boolean =>
  Object.values(limits).every((limit) => limit === undefined || amountMinor <= limit);

// ---------------------------------------------------------------------------------------
// Identity: ONE decision per (customer, merchant) (DESIGN 6.9 "Decision identity").

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Length of 16 bytes in base62 (62^22 > 2^128). */
const ID_BODY_LENGTH = 22;

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = B62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(ID_BODY_LENGTH, '0');
}

/**
 * The decision id of a (merchant, customer) pair: `dec_` + base62 of the first 16 bytes of
 * SHA-256 over a domain-separated string. Deterministic, so the one decision of a pair is
 * found (and created exactly once, with a conditional put) without a pointer item. Not a
 * secret and not an authorization: every read checks the caller owns the decision. No key is
 * involved on purpose: a rotated master secret must not change ids.
 */
export function decisionId(merchantId: string, customerId: string): string {
  const digest = createHash('sha256').update(`idpay:decision:v1|${merchantId}|${customerId}`).digest();
  return `dec_${base62(digest.subarray(0, 16))}`;
}

export const isDecisionIdShaped = (id: unknown): id is string =>
  typeof id === 'string' && new RegExp(`^dec_[0-9A-Za-z]{${ID_BODY_LENGTH}}$`).test(id);
