import { canGrantTrustLevel, trustOf, type TrustState } from '../../domain/trust';
import { commit } from '../../events/outbox';
import { auditPut } from '../../identity/audit';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, forbidden, notFound } from '../../platform/errors';
import { getProviderMerchant, trustUpdateItem } from '../../merchants/store';
import { getParticipant } from '../../identity/participant-store';
import { cancellationCodes, isTransactionCancelled, nowIso } from '../../platform/table';
import { trustLevelMessage, updateTrustSchema } from './schemas';

const MAX_ATTEMPTS = 5;

/**
 * PATCH /v1/provider/merchant/trust: sets trusted (required), trustLevel and
 * deviceLookupEnabled (kept when omitted), stamps lastVerified, and emits
 * `merchant.trust.updated` to the merchant (and so its provider) in the same transaction, with
 * the audit entry in the provider's log and in the merchant's own.
 * A trustLevel above the provider's maxTrustLevel is 403.
 */
export const handler = endpoint(
  { body: updateTrustSchema, bodyMessage: trustLevelMessage('trustLevel', MSG.invalidRequest) },
  async ({ body, principal, audit }) => {
    for (let attempt = 1; ; attempt++) {
      const merchant = await getProviderMerchant(principal.id, body.entityId);
      if (!merchant) throw notFound(MSG.merchantNotFound);
      if (body.trustLevel !== undefined) {
        const provider = await getParticipant(principal.id);
        if (!canGrantTrustLevel(body.trustLevel, provider?.maxTrustLevel)) {
          throw forbidden(MSG.trustLevelForbidden);
        }
      }
      const current = trustOf(merchant);
      const next: TrustState = {
        trusted: body.trusted,
        trustLevel: body.trustLevel ?? current.trustLevel,
        deviceLookupEnabled: body.deviceLookupEnabled ?? current.deviceLookupEnabled,
      };
      const lastVerified = nowIso();
      try {
        await commit(
          [
            trustUpdateItem(merchant, next, lastVerified),
            // In the provider's log (who made it) and the merchant's own (whom it concerns).
            auditPut(principal.id, audit, 'merchant.trust_updated', merchant.id),
            auditPut(merchant.id, audit, 'merchant.trust_updated', merchant.id),
          ],
          [{ type: 'merchant.trust.updated', to: merchant.id, data: { entityId: merchant.id, ...next, lastVerified } }],
        );
      } catch (e) {
        // Another trust change won the race (index 0 = our update): apply ours on its result.
        if (
          isTransactionCancelled(e) &&
          attempt < MAX_ATTEMPTS &&
          ['ConditionalCheckFailed', 'TransactionConflict'].includes(cancellationCodes(e)[0] ?? '')
        ) {
          continue;
        }
        throw e;
      }
      return ok(200, 'Merchant trust updated', { entityId: merchant.id, ...next, lastVerified });
    }
  },
);
