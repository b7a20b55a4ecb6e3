/**
 * The simulated bank's magic customers: THE single source. The seeding of a
 * simulated bank (functions/sandbox/seed.ts), the simulator that answers in the bank's place
 * (functions/sandbox/simulator.ts) and `GET /v1/sandbox/customers` all read this table, and
 * the README's "Test your integration in the sandbox" section documents it.
 *
 * A magic customer is selected by the LOCAL PART of its email (`<local>@sandbox.idpay.test`)
 * or by its device id (`sandbox-device-<slug>`). Each one fixes two answers of its bank:
 *
 *  - `intent`: what the bank answers to `billing.intent` (POST /v1/billing/intent-response
 *    semantics): a decision, spending limits, blockMerchant; null = never answers.
 *  - `debit`: what the bank answers to every `billing.request` of that customer (POST
 *    /v1/billing/bank-response semantics): approve (the payment succeeds), deny or
 *    suspended (declined); null = never answers (an approval then expires).
 *
 * `approve_recurring` needs a trusted merchant (DESIGN 6.5). For a merchant that is not
 * trusted the simulated bank answers `approve_once` instead, with the same limits: the
 * merchant still gets an agreementPhrase, and its billings then need the (simulated)
 * customer's approval each time.
 */
import type { DecisionValue } from '../domain/decisions';
import type { DisputeReason } from '../disputes/views';

/** Domain of every magic email (`.test` is reserved: it can never reach a real mailbox). */
export const SANDBOX_EMAIL_DOMAIN = 'sandbox.idpay.test';
/**
 * The magic e-mail of discovery budgets (DESIGN 10.5): in the sandbox, `GET /v1/customer/banks`
 * with it answers 429 `Discovery limit reached` (Retry-After to the next Lagos midnight) and
 * sends `merchant.discovery_limited`, as a merchant over its budget would, every time and
 * without using the budget.
 */
export const DISCOVERY_LIMIT_EMAIL = `discovery.limited@${SANDBOX_EMAIL_DOMAIN}`;

/** Prefix of the magic device ids. */
export const SANDBOX_DEVICE_PREFIX = 'sandbox-device-';

/** Major units (NGN), as the API takes and shows them. */
export type MagicLimits = Partial<Record<'single' | 'daily' | 'weekly' | 'monthly', number>>;

export interface MagicIntentAnswer {
  customerDecision: DecisionValue;
  spendingLimits: MagicLimits;
  blockMerchant: boolean;
  /** Consent terms of the answer (DESIGN 8.5): a payment count, a validity from the answer on. */
  terms?: { maxPayments?: number; validForSeconds?: number };
}

/**
 * A bank-response action; `approve` = approve_once for a billing that needs approval,
 * approve_recurring otherwise; `insufficient_funds` = deny with that `declineReason` (the
 * bank declines, not the customer: a recurring run is retried by the merchant's policy).
 */
export type MagicDebit = 'approve' | 'deny' | 'suspended' | 'insufficient_funds';

export interface MagicCustomer {
  /** Stable name of the outcome (snake_case). */
  outcome: string;
  /** The email local part that selects it. */
  local: string;
  description: string;
  intent: MagicIntentAnswer | null;
  debit: MagicDebit | null;
  /** The bank disputes every debit it approved, with this reason, SANDBOX_BANK_DELAY_SECONDS later (DESIGN 9.4). */
  dispute?: DisputeReason;
}

const answer = (customerDecision: DecisionValue, spendingLimits: MagicLimits = {}, blockMerchant = false): MagicIntentAnswer => ({
  customerDecision,
  spendingLimits,
  blockMerchant,
});

export const MAGIC_CUSTOMERS: readonly MagicCustomer[] = [
  {
    outcome: 'approve_recurring',
    local: 'approve.recurring',
    description:
      'Approves intents with approve_recurring and no spending limits (approve_once for an untrusted merchant); approves every debit.',
    intent: answer('approve_recurring'),
    debit: 'approve',
  },
  {
    outcome: 'recurring_limits',
    local: 'recurring.limits',
    description:
      'Approves intents with approve_recurring and limits single 50,000 / daily 100,000 / monthly 1,000,000 NGN (approve_once for an untrusted merchant); approves every debit.',
    intent: answer('approve_recurring', { single: 50_000, daily: 100_000, monthly: 1_000_000 }),
    debit: 'approve',
  },
  {
    outcome: 'approve_two_payments',
    local: 'approve.two.payments',
    description:
      'Approves intents with approve_recurring (approve_once for an untrusted merchant) whose consent allows 2 payments (maxPayments: 2, channel app); approves every debit: the third billing is refused with 403 `Customer approval has no payments left`.',
    intent: { ...answer('approve_recurring'), terms: { maxPayments: 2 } },
    debit: 'approve',
  },
  {
    outcome: 'approve_valid_one_minute',
    local: 'approve.valid.one.minute',
    description:
      'Approves intents with approve_recurring (approve_once for an untrusted merchant) valid for 60 seconds from the answer (validFrom: the answer, validTo: 60 s later); approves every debit: a billing after validTo is refused with 403 `Customer approval is not valid at this time`.',
    intent: { ...answer('approve_recurring'), terms: { validForSeconds: 60 } },
    debit: 'approve',
  },
  {
    outcome: 'approve_once',
    local: 'approve.once',
    description: 'Approves intents with approve_once (each billing needs approval); approves every debit.',
    intent: answer('approve_once'),
    debit: 'approve',
  },
  {
    outcome: 'deny',
    local: 'deny',
    description: 'Denies intents; denies one-time payments.',
    intent: answer('deny'),
    debit: 'deny',
  },
  {
    outcome: 'suspended',
    local: 'suspended',
    description: 'Answers intents with suspended; answers one-time payments with suspended.',
    intent: answer('suspended'),
    debit: 'suspended',
  },
  {
    outcome: 'block_merchant',
    local: 'block.merchant',
    description: 'Denies intents and blocks the merchant (blockMerchant: true); denies one-time payments sent before the block.',
    intent: answer('deny', {}, true),
    debit: 'deny',
  },
  {
    outcome: 'debit_declined',
    local: 'debit.declined',
    description: 'Approves intents with approve_recurring (approve_once for an untrusted merchant) but declines (deny) every debit.',
    intent: answer('approve_recurring'),
    debit: 'deny',
  },
  {
    outcome: 'insufficient_funds',
    local: 'insufficient.funds',
    description:
      "Approves intents with approve_recurring (approve_once for an untrusted merchant); the bank declines every debit with declineReason insufficient_funds: recurring runs are retried by the merchant's retry policy (willRetry on billing.response).",
    intent: answer('approve_recurring'),
    debit: 'insufficient_funds',
  },
  {
    outcome: 'dispute_unauthorized',
    local: 'dispute.unauthorized',
    description:
      'Approves intents with approve_recurring (approve_once for an untrusted merchant); approves every debit, then disputes it as unauthorized SANDBOX_BANK_DELAY_SECONDS later (dispute.created). Respond with evidence containing winning_evidence to win, anything else loses.',
    intent: answer('approve_recurring'),
    debit: 'approve',
    dispute: 'unauthorized',
  },
  {
    outcome: 'debit_no_answer',
    local: 'debit.no.answer',
    description: 'Approves intents with approve_once but never answers a debit: the approval expires after APPROVAL_WINDOW_SECONDS.',
    intent: answer('approve_once'),
    debit: null,
  },
  {
    outcome: 'no_answer',
    local: 'no.answer',
    description: 'Never answers intents nor debits: a one-time payment expires after APPROVAL_WINDOW_SECONDS.',
    intent: null,
    debit: null,
  },
];

export const magicEmail = (m: Pick<MagicCustomer, 'local'>) => `${m.local}@${SANDBOX_EMAIL_DOMAIN}`;
export const magicSlug = (m: Pick<MagicCustomer, 'local'>) => m.local.replace(/\./g, '-');
/** The device id of a magic customer (the oldest simulated bank holds these exact ids). */
export const magicDeviceId = (m: Pick<MagicCustomer, 'local'>) => `${SANDBOX_DEVICE_PREFIX}${magicSlug(m)}`;
/**
 * A device id identifies ONE customer across all banks, so the exact ids belong to the first
 * simulated bank that linked them; a later simulated bank gets its own: `<id>.<bankId>`.
 */
export const bankScopedDeviceId = (m: Pick<MagicCustomer, 'local'>, bankId: string) => `${magicDeviceId(m)}.${bankId}`;

const byLocal = new Map(MAGIC_CUSTOMERS.map((m) => [m.local, m]));
const byOutcome = new Map(MAGIC_CUSTOMERS.map((m) => [m.outcome, m]));

/** The magic customer an email selects (case-insensitive), or undefined for any other email. */
export function magicForEmail(email: string): MagicCustomer | undefined {
  const e = email.trim().toLowerCase();
  const at = e.lastIndexOf('@');
  if (at <= 0 || e.slice(at + 1) !== SANDBOX_EMAIL_DOMAIN) return undefined;
  return byLocal.get(e.slice(0, at));
}

export const magicForOutcome = (outcome: string): MagicCustomer | undefined => byOutcome.get(outcome);

/**
 * The customer records a simulated bank onboards (through the same batch code path as
 * POST /v1/bank/customers). clientRef/reference are fixed per outcome: unique within the bank.
 */
export function seedRecords(): Record<string, unknown>[] {
  return MAGIC_CUSTOMERS.map((m, i) => ({
    clientRef: `sandbox-${magicSlug(m)}`,
    reference: `SANDBOX-${magicSlug(m).toUpperCase()}`,
    firstname: 'Sandbox',
    lastname: m.outcome
      .split('_')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' '),
    email: magicEmail(m),
    country: 'NG',
    accountNumber: `90000000${String(i + 1).padStart(2, '0')}`,
  }));
}

/** Bank transaction id the simulated bank gives an approved debit (deterministic per billing). */
export const simulatedBankTransactionId = (billingRequestId: string) => `SBX-${billingRequestId}`;

/** The phrase the simulated bank stores with its device links (see docs/decisions/customer-discovery.md). */
export const SIMULATED_DEVICE_PHRASE = 'sandbox-simulated-device';

/** The public view of a magic customer (`GET /v1/sandbox/customers`). */
export function magicView(m: MagicCustomer) {
  return {
    outcome: m.outcome,
    email: magicEmail(m),
    deviceId: magicDeviceId(m),
    description: m.description,
    intentResponse: m.intent
      ? {
          customerDecision: m.intent.customerDecision,
          spendingLimits: { ...m.intent.spendingLimits },
          blockMerchant: m.intent.blockMerchant,
        }
      : null,
    debitResponse: m.debit,
    disputeReason: m.dispute ?? null,
  };
}
