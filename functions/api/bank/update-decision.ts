import * as z from 'zod';
import { isDecisionIdShaped } from '../../domain/decisions';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { decisionRecord, lastUsedOf, termsOf } from '../../decisions/views';
import { saveDecision } from '../../decisions/store';
import { isTrustedMerchant } from '../../merchants/store';
import { consentTermsShape, mergeTerms, spendingLimitsSchema, untrustedError } from './intent-response';
import { decisionValueSchema } from '../../http/schemas';

const bodySchema = z
  .strictObject({
    customerDecision: decisionValueSchema.optional(),
    spendingLimits: spendingLimitsSchema.optional(),
    blockMerchant: z.boolean().optional(),
    ...consentTermsShape,
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message:
      'give at least one of customerDecision, spendingLimits, blockMerchant, validFrom, validTo, maxPayments, channel, customerAcceptedAt',
  });

/**
 * PUT /v1/bank/customer-decisions/{id} (bank, its customers' decisions): changes the decision
 * on the customer's behalf. Omitted fields keep their values; `spendingLimits` replaces the
 * whole set (`{}` or null removes every limit); each consent term given replaces it (null
 * clears it), validTo must stay after validFrom (400). Every change appends a history version. Setting approve_recurring needs a trusted
 * merchant (400). The change and `billing.intent.response` (intentId null, the new state) to
 * the merchant and its provider are one transaction. Unknown or another bank's: 404.
 */
export const handler = endpoint({ body: bodySchema }, async ({ body, params, principal }) => {
  const id = params.id;
  if (!isDecisionIdShaped(id)) throw notFound(MSG.decisionNotFound);
  const result = await saveDecision({
    decisionId: id,
    owns: (d) => d.bankId === principal.id,
    change: (current) => ({
      decision: body.customerDecision ?? current!.decision,
      spendingLimits: body.spendingLimits ?? current!.spendingLimits,
      blockMerchant: body.blockMerchant ?? current!.blockMerchant,
      lookupPhrase: current!.lookupPhrase,
      terms: mergeTerms(termsOf(current!), body),
    }),
    reason: 'bank_update',
    trustedMerchant: body.customerDecision === 'approve_recurring' ? isTrustedMerchant : undefined,
  });
  if (!result.ok) {
    if (result.reason === 'untrusted') throw untrustedError();
    throw notFound(MSG.decisionNotFound);
  }
  const lastUsed = (await lastUsedOf([result.decision])).get(result.decision.id) ?? null;
  return ok(200, 'Customer decision updated', decisionRecord(result.decision, lastUsed));
});
