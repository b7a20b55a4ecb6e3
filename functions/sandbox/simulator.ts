/**
 * The simulated bank (sandbox only): answers `billing.intent` and `billing.request` in the
 * bank's place (and disputes: a magic customer's debits, merchants' evidence on `dispute.updated`), as its magic customer (functions/sandbox/magic.ts) would have the bank answer.
 *
 * It takes the SAME code paths as the bank's own calls, with the simulated bank as the
 * principal:
 *  - intent: what POST /v1/billing/intent-response does (`getBankCustomer` for the bank,
 *    `findIntentToAnswer`, `saveDecision` with the trust condition): the decision, the
 *    intent answered once, and `billing.intent.response` to the merchant in one transaction;
 *  - billing request: what POST /v1/billing/bank-response does (`settleBilling`, the bank's
 *    own billing requests only, pending only, never after the approval window).
 *
 * A repeat (a job retried after a crash) changes nothing: an intent is answered once and a
 * billing leaves `pending` once; the simulator then reports `already_answered`.
 */
import { clockNow } from '../platform/clock';
import { isBillingRequestIdShaped } from '../billing/bill-item';
import type { BillingOutcome } from '../bills/outcome';
import { isPastExpiry, settleBilling } from '../billing/settle-billing';
import { config } from '../config';
import type { DecisionValue, SpendingLimits } from '../domain/decisions';
import { NO_TERMS, type ConsentTerms } from '../domain/consent';
import { toMinor } from '../domain/money';
import { billKey, type BillItem } from '../bills/types';
import { getBankCustomer } from '../customers/views';
import { decisionId } from '../decisions/views';
import { saveDecision } from '../decisions/store';
import { findIntentToAnswer } from '../decisions/intents';
import { amendmentAnswerItems } from '../recurring/amendments';
import { isTrustedMerchant } from '../merchants/store';
import { getParticipant, type Participant } from '../identity/participant-store';
import { getItem } from '../platform/table';
import { openDispute, resolveDispute } from '../disputes/store';
import { getDispute } from '../disputes/views';
import { sandboxBankDelaySeconds } from '../events/sandbox-bank';
import { magicForEmail, simulatedBankTransactionId, type MagicCustomer, type MagicIntentAnswer, type MagicLimits } from './magic';

export type SimulationResult =
  | { acted: true; event: 'billing.intent'; outcome: string; decision: DecisionValue; fellBackToApproveOnce: boolean }
  | {
      acted: true;
      event: 'billing.request';
      outcome: string;
      status: BillItem['status'];
      /** The bank acts on this billing again then (a magic customer that disputes its debits). */
      followUpAt?: Date;
      disputeId?: string;
    }
  | { acted: true; event: 'dispute.updated'; outcome: 'won' | 'lost'; disputeId: string }
  | {
      acted: false;
      why:
        | 'live_stage' // never acts in live
        | 'not_simulated' // the receiver is not a simulated bank
        | 'unsupported_event'
        | 'not_found' // customer, merchant, intent or billing unknown or not this bank's
        | 'not_magic' // a customer the bank onboarded itself: answered by hand (the bank's API key)
        | 'never_answers' // the magic customer never answers this
        | 'already_answered'
        | 'expired'; // past the approval window: the expiry worker expires it
      outcome?: string;
    };

export interface BankEvent {
  type: string;
  to: string;
  data: Record<string, unknown>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Answer an event addressed to a simulated bank (the due kind `sandbox.bank` calls this). */
export async function answerAsSimulatedBank(event: BankEvent, now: Date): Promise<SimulationResult> {
  if (config.stage() !== 'sandbox') return { acted: false, why: 'live_stage' };
  const bank = await getParticipant(event.to);
  if (bank?.type !== 'bank' || bank.simulated !== true) return { acted: false, why: 'not_simulated' };
  if (event.type === 'billing.intent') return answerIntent(bank, event.data);
  if (event.type === 'billing.request') return answerBillingRequest(bank, event.data, now);
  if (event.type === 'dispute.updated') return decideDispute(bank, event.data, now);
  return { acted: false, why: 'unsupported_event' };
}

/** The consent terms of a magic customer's answer given at `now` (DESIGN 8.5). */
function termsFor(answer: MagicIntentAnswer, now: Date): ConsentTerms {
  const t = answer.terms;
  if (!t) return NO_TERMS;
  return {
    ...NO_TERMS,
    ...(t.maxPayments !== undefined ? { maxPayments: t.maxPayments } : {}),
    ...(t.validForSeconds !== undefined
      ? { validFrom: now.toISOString(), validTo: new Date(now.getTime() + t.validForSeconds * 1000).toISOString() }
      : {}),
    channel: 'app',
    customerAcceptedAt: now.toISOString(),
  };
}

function limitsToMinor(limits: MagicLimits): SpendingLimits {
  const out: SpendingLimits = {};
  for (const [period, major] of Object.entries(limits) as [keyof SpendingLimits, number][]) {
    const minor = toMinor(major);
    if (minor === undefined) throw new Error(`magic limit ${period} is not an amount`);
    out[period] = minor;
  }
  return out;
}

class IntentRefused extends Error {
  constructor(readonly reason: 'not_found' | 'answered') {
    super(`intent ${reason}`);
  }
}

/** POST /v1/billing/intent-response, as the magic customer answers. */
async function answerIntent(bank: Participant, data: Record<string, unknown>): Promise<SimulationResult> {
  const customer = await getBankCustomer(bank.id, str(data.customerId));
  if (!customer) return { acted: false, why: 'not_found' };
  const magic = magicForEmail(customer.email);
  if (!magic) return { acted: false, why: 'not_magic' };
  if (!magic.intent) return { acted: false, why: 'never_answers', outcome: magic.outcome };
  const merchant = await getParticipant(str(data.entityId));
  if (merchant?.type !== 'merchant') return { acted: false, why: 'not_found', outcome: magic.outcome };
  const answer = magic.intent;

  // approve_recurring needs a trusted merchant: the simulated customer approves once instead.
  let decision = answer.customerDecision;
  let fellBack = false;
  if (decision === 'approve_recurring' && !(await isTrustedMerchant(merchant.id))) {
    decision = 'approve_once';
    fellBack = true;
  }
  for (;;) {
    const chosen: DecisionValue = decision;
    try {
      const result = await saveDecision({
        decisionId: decisionId(merchant.id, customer.id),
        create: { customerId: customer.id, bankId: bank.id, merchantId: merchant.id, clientRef: customer.clientRef },
        owns: (d) => d.bankId === bank.id,
        intent: async () => {
          const lookup = await findIntentToAnswer({
            customerId: customer.id,
            merchantId: merchant.id,
            lookupPhrase: str(data.lookupPhrase),
            ...(typeof data.intentId === 'string' ? { intentId: data.intentId } : {}),
          });
          if ('refused' in lookup) throw new IntentRefused(lookup.refused);
          return lookup.found;
        },
        change: (_current, intent) => ({
          decision: chosen,
          spendingLimits: limitsToMinor(answer.spendingLimits),
          blockMerchant: answer.blockMerchant,
          lookupPhrase: intent!.lookupPhrase,
          terms: termsFor(answer, clockNow()),
        }),
        onAnswer: amendmentAnswerItems,
        reason: 'intent_response',
        trustedMerchant: chosen === 'approve_recurring' ? isTrustedMerchant : undefined,
      });
      if (result.ok)
        return { acted: true, event: 'billing.intent', outcome: magic.outcome, decision: chosen, fellBackToApproveOnce: fellBack };
      if (result.reason === 'untrusted' && chosen === 'approve_recurring') {
        // Un-trusted between our read and the write: fall back like above.
        decision = 'approve_once';
        fellBack = true;
        continue;
      }
      return { acted: false, why: result.reason === 'intent_answered' ? 'already_answered' : 'not_found', outcome: magic.outcome };
    } catch (e) {
      if (e instanceof IntentRefused)
        return { acted: false, why: e.reason === 'answered' ? 'already_answered' : 'not_found', outcome: magic.outcome };
      throw e;
    }
  }
}

/** The bank-response action of a magic customer for this billing. */
export function debitOutcome(
  magic: MagicCustomer,
  bill: Pick<BillItem, 'billingRequestId' | 'requiresApproval'>,
): BillingOutcome | undefined {
  switch (magic.debit) {
    case null:
      return undefined;
    case 'approve':
      return {
        status: 'succeeded',
        action: bill.requiresApproval ? 'approve_once' : 'approve_recurring',
        bankTransactionId: simulatedBankTransactionId(bill.billingRequestId),
      };
    case 'deny':
    case 'suspended':
      return { status: 'declined', action: magic.debit };
    case 'insufficient_funds':
      return { status: 'declined', action: 'deny', declineReason: 'insufficient_funds' };
  }
}

/** Bounded: each round means another writer changed the billing; the next read decides (as the handler). */
const MAX_ROUNDS = 4;

/** POST /v1/billing/bank-response, as the magic customer answers. */
async function answerBillingRequest(bank: Participant, data: Record<string, unknown>, now: Date): Promise<SimulationResult> {
  const id = str(data.billingRequestId);
  if (!isBillingRequestIdShaped(id)) return { acted: false, why: 'not_found' };
  let bill = await getItem<BillItem>(billKey(id));
  if (!bill || bill.bankId !== bank.id) return { acted: false, why: 'not_found' };
  const customer = await getBankCustomer(bank.id, bill.customerId);
  if (!customer) return { acted: false, why: 'not_found' };
  const magic = magicForEmail(customer.email);
  if (!magic) return { acted: false, why: 'not_magic' };
  const outcome = debitOutcome(magic, bill);
  if (!outcome) return { acted: false, why: 'never_answers', outcome: magic.outcome };

  for (let round = 1; round <= MAX_ROUNDS; round++) {
    if (bill.status !== 'pending') {
      // A magic customer that disputes its debits: the follow-up of the approval.
      if (magic.dispute && bill.status === 'succeeded' && !bill.latestDisputeId) return disputeDebit(bank, bill, magic, now);
      return { acted: false, why: 'already_answered', outcome: magic.outcome };
    }
    // Past the window the bank can no longer answer; the billing.expiry worker expires it.
    if (isPastExpiry(bill, now)) return { acted: false, why: 'expired', outcome: magic.outcome };
    const r = await settleBilling(bill, outcome, now);
    if (r.ok)
      return {
        acted: true,
        event: 'billing.request',
        outcome: magic.outcome,
        status: r.bill.status,
        ...(magic.dispute && r.bill.status === 'succeeded'
          ? { followUpAt: new Date(now.getTime() + sandboxBankDelaySeconds() * 1000) }
          : {}),
      };
    if (r.reason === 'busy') break;
    if (!r.current) return { acted: false, why: 'not_found', outcome: magic.outcome };
    bill = r.current;
  }
  // Contention outlasted the rounds: nothing was written; the job's lease makes it due again.
  throw new Error('simulated bank: billing contention');
}

/** POST /v1/bank/disputes, as a magic customer that disputes its debits has its bank do (for what is left). */
async function disputeDebit(bank: Participant, bill: BillItem, magic: MagicCustomer, now: Date): Promise<SimulationResult> {
  const r = await openDispute({ bankId: bank.id, reference: bill.reference, reason: magic.dispute!, now: () => now });
  if (!r.ok) return { acted: false, why: r.reason === 'not_found' ? 'not_found' : 'already_answered', outcome: magic.outcome };
  return { acted: true, event: 'billing.request', outcome: magic.outcome, status: bill.status, disputeId: r.dispute.disputeId };
}

/** The word in a merchant's evidence that wins a simulated bank's dispute (DESIGN 9.4). */
export const WINNING_EVIDENCE = 'winning_evidence';

/**
 * POST /v1/bank/disputes/{id}/resolve, as a simulated bank decides a dispute under review
 * (SANDBOX_BANK_DELAY_SECONDS after the merchant's evidence arrived): `won` when the evidence
 * contains `winning_evidence`, else `lost`.
 */
async function decideDispute(bank: Participant, data: Record<string, unknown>, now: Date): Promise<SimulationResult> {
  const d = await getDispute(str(data.disputeId));
  if (!d || d.bankId !== bank.id) return { acted: false, why: 'not_found' };
  if (d.status !== 'under_review') return { acted: false, why: 'already_answered' };
  const outcome = d.evidence?.text.includes(WINNING_EVIDENCE) ? 'won' : 'lost';
  const r = await resolveDispute(d.disputeId, outcome, now);
  if (!r.ok) return { acted: false, why: 'already_answered' };
  return { acted: true, event: 'dispute.updated', outcome, disputeId: d.disputeId };
}
