import { canGrantTrustLevel, trustOf, type TrustState } from '../../domain/trust';
import { commit } from '../../events/outbox';
import { auditPut } from '../../identity/audit';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, forbidden, notFound } from '../../platform/errors';
import { getProviderMerchant, trustUpdateItem } from '../../merchants/store';
import { getParticipant } from '../../identity/participant-store';
import { limitsOfMerchant } from '../../customers/discovery-store';
import { cancellationCodes, isTransactionCancelled, nowIso } from '../../platform/table';
import { trustLevelMessage, updateTrustSchema } from './schemas';

const MAX_ATTEMPTS = 5;

/**
 * PATCH /v1/provider/merchant/trust: sets trusted (required), trustLevel,
 * deviceLookupEnabled and the discovery limits (DESIGN 10.5; kept when omitted, a limit's null
 * returns it to the default), stamps lastVerified, and emits
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
      const limitChanges = { discoveryDailyLimit: body.discoveryDailyLimit, discoveryMissLimit: body.discoveryMissLimit };
      // The limits in force after this change (what the answer and the event show).
      const limits = limitsOfMerchant({
        ...merchant,
        ...Object.fromEntries(Object.entries(limitChanges).filter(([, v]) => v !== undefined)),
      });
      const discovery = { discoveryDailyLimit: limits.daily, discoveryMissLimit: limits.misses };
      try {
        await commit(
          [
            trustUpdateItem(merchant, next, lastVerified, limitChanges),
            // In the provider's log (who made it) and the merchant's own (whom it concerns).
            auditPut(principal.id, audit, 'merchant.trust_updated', merchant.id),
            auditPut(merchant.id, audit, 'merchant.trust_updated', merchant.id),
          ],
          [{ type: 'merchant.trust.updated', to: merchant.id, data: { entityId: merchant.id, ...next, lastVerified, ...discovery } }],
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
      return ok(200, 'Merchant trust updated', { entityId: merchant.id, ...next, lastVerified, ...discovery });
    }
  },
);
