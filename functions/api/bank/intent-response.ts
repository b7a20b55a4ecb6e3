import { amendmentAnswerItems } from '../../recurring/amendments';
import * as z from 'zod';
import { LIMIT_PERIODS, type SpendingLimits } from '../../domain/decisions';
import { decisionValueSchema } from '../../http/schemas';
import { CONSENT_CHANNELS, NO_TERMS, type ConsentTerms } from '../../domain/consent';
import { majorAmount } from '../../http/money-schemas';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, notFound } from '../../platform/errors';
import { getBankCustomer } from '../../customers/store';
import { decisionId, decisionRecord, lastUsedOf } from '../../decisions/views';
import { saveDecision } from '../../decisions/store';
import { findIntentToAnswer } from '../../decisions/intents';
import { isTrustedMerchant } from '../../merchants/store';
import { getParticipant } from '../../identity/participant-store';

/** A limit: a positive JSON number in major units with at most 2 decimals (stored in minor units). */
const limit = majorAmount({ minMinor: 1 }).nullable().optional();

/**
 * spendingLimits: any subset of single/daily/weekly/monthly/yearly. A period that is absent or null
 * has no limit; `null` or `{}` for the whole object means no limits.
 */
export const spendingLimitsSchema = z
  .strictObject({ single: limit, daily: limit, weekly: limit, monthly: limit, yearly: limit })
  .nullable()
  .transform((v): SpendingLimits => {
    const out: SpendingLimits = {};
    for (const p of LIMIT_PERIODS) {
      const x = v?.[p];
      if (typeof x === 'number') out[p] = x;
    }
    return out;
  });

const instant = z.iso.datetime({ offset: true }).transform((v) => new Date(v).toISOString());

/** Consent terms (DESIGN 8.5), each optional; null clears it (the bank's PUT). */
export const consentTermsShape = {
  validFrom: instant.nullable().optional(),
  validTo: instant.nullable().optional(),
  maxPayments: z.number().int().min(1).max(1_000_000).nullable().optional(),
  channel: z.enum(CONSENT_CHANNELS).nullable().optional(),
  customerAcceptedAt: instant.nullable().optional(),
};
type TermsInput = { [K in keyof ConsentTerms]?: ConsentTerms[K] | null };

/** The terms after a change: given fields replace (null clears), omitted ones keep `base`'s. */
export function mergeTerms(base: ConsentTerms, given: TermsInput): ConsentTerms {
  const out = { ...base } as Record<string, unknown>;
  for (const k of Object.keys(base) as (keyof ConsentTerms)[]) if (given[k] !== undefined) out[k] = given[k];
  const terms = out as unknown as ConsentTerms;
  if (terms.validFrom && terms.validTo && Date.parse(terms.validTo) <= Date.parse(terms.validFrom)) {
    throw badRequest(MSG.invalidRequest, [{ path: 'validTo', message: 'validTo must be after validFrom' }]);
  }
  return terms;
}

const id = z.string().min(1).max(100);

const bodySchema = z.strictObject({
  customerId: id,
  entityId: id,
  lookupPhrase: z.string().min(1).max(1000),
  customerDecision: decisionValueSchema,
  spendingLimits: spendingLimitsSchema.optional(),
  blockMerchant: z.boolean().optional(),
  intentId: id.optional(),
  ...consentTermsShape,
});

/**
 * POST /v1/billing/intent-response (bank, its own customers): answers an intent (the given
 * `intentId`, else the newest open intent for (customerId, entityId, lookupPhrase)). The
 * answer sets the pair's decision whole (decision, spendingLimits - none when omitted -,
 * blockMerchant - false when omitted): created on the first answer, updated in place after
 * (same id, same agreementPhrase), with its consent terms (DESIGN 8.5: validFrom, validTo,
 * spendingLimits.yearly, maxPayments, channel, customerAcceptedAt). In ONE transaction: intent answered (only if still open),
 * decision written (only if unchanged since read), the merchant still trusted (for
 * approve_recurring), the decision's new history version, and `billing.intent.response` to the
 * merchant (and its provider).
 *
 * Refusals, in this order, write nothing: 404 Customer not found (unknown or another bank's),
 * 404 Merchant not found, 404 Billing intent not found, 409 Billing intent has already been
 * answered, 400 approve_recurring requires a trusted merchant.
 */
export const handler = endpoint({ body: bodySchema }, async ({ body, principal }) => {
  const customer = await getBankCustomer(principal.id, body.customerId);
  if (!customer) throw notFound(MSG.customerNotFound);
  const merchant = await getParticipant(body.entityId);
  if (merchant?.type !== 'merchant') throw notFound(MSG.merchantNotFound);

  const result = await saveDecision({
    decisionId: decisionId(merchant.id, customer.id),
    create: { customerId: customer.id, bankId: principal.id, merchantId: merchant.id, clientRef: customer.clientRef },
    owns: (d) => d.bankId === principal.id,
    intent: async () => {
      const lookup = await findIntentToAnswer({
        customerId: customer.id,
        merchantId: merchant.id,
        lookupPhrase: body.lookupPhrase,
        intentId: body.intentId,
      });
      if ('refused' in lookup) {
        throw lookup.refused === 'answered' ? conflict(MSG.billingIntentAnswered) : notFound(MSG.billingIntentNotFound);
      }
      return lookup.found;
    },
    change: (_current, intent) => ({
      decision: body.customerDecision,
      spendingLimits: body.spendingLimits ?? {},
      blockMerchant: body.blockMerchant ?? false,
      lookupPhrase: intent!.lookupPhrase,
      // The answer sets the decision whole: terms not given are not set.
      terms: mergeTerms(NO_TERMS, body),
    }),
    onAnswer: amendmentAnswerItems,
    reason: 'intent_response',
    trustedMerchant: body.customerDecision === 'approve_recurring' ? isTrustedMerchant : undefined,
  });
  if (!result.ok) {
    if (result.reason === 'intent_answered') throw conflict(MSG.billingIntentAnswered);
    if (result.reason === 'untrusted') throw untrustedError();
    throw notFound(MSG.customerNotFound);
  }
  const lastUsed = (await lastUsedOf([result.decision])).get(result.decision.id) ?? null;
  return ok(200, 'Customer decision recorded', decisionRecord(result.decision, lastUsed));
});

export const untrustedError = () =>
  badRequest(MSG.approveRecurringUntrusted, [{ path: 'customerDecision', message: 'the merchant is not trusted' }]);
