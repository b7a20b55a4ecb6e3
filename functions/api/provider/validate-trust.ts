import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { meetsTrustLevel, trustOf } from '../../domain/trust';
import { getProviderMerchant } from '../../merchants/store';
import { trustLevelMessage, validateTrustSchema } from './schemas';

/**
 * POST /v1/provider/merchant/trust/validate: `valid` when the merchant is trusted and its
 * level is at least requiredTrustLevel (basic < enhanced < premium). Reads only.
 */
export const handler = endpoint(
  { body: validateTrustSchema, bodyMessage: trustLevelMessage('requiredTrustLevel', MSG.invalidRequest) },
  async ({ body, principal }) => {
    const merchant = await getProviderMerchant(principal.id, body.entityId);
    if (!merchant) throw notFound(MSG.merchantNotFound);
    const trust = trustOf(merchant);
    return ok(200, 'Merchant trust level validated', {
      entityId: merchant.id,
      currentTrustLevel: trust.trustLevel,
      requiredTrustLevel: body.requiredTrustLevel,
      trusted: trust.trusted,
      valid: meetsTrustLevel(trust, body.requiredTrustLevel),
    });
  },
);
