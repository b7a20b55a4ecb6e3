import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';
import { updateMerchantProfile } from '../../merchants/store';
import { updateMerchantSchema } from './schemas';

/**
 * PATCH /v1/provider/merchant: changes the given profile fields (null removes an optional
 * one). A new email must be unique; its guard moves in the same transaction.
 */
export const handler = endpoint({ body: updateMerchantSchema, bodyMessage: MSG.invalidMerchantData }, async ({ body, principal }) => {
  const { entityId, ...changes } = body;
  const result = await updateMerchantProfile(principal.id, entityId, changes);
  if (!result.ok) {
    if (result.reason === 'not_found') throw notFound(MSG.merchantNotFound);
    throw conflict(MSG.merchantEmailExists, [{ path: 'email', message: 'a merchant with this email already exists' }]);
  }
  return ok(200, 'Merchant updated', result.merchant);
});
