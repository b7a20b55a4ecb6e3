import { endpoint } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { deviceLookupPermission, trustOf } from '../../domain/trust';
import { getProviderMerchant } from '../../merchants/store';
import { entityQuery, trustStatus } from './schemas';

/**
 * GET /v1/provider/merchant/trust/device-permission?entityId=: whether the merchant may use
 * device lookup. The spec's shape: statusCode, allowed, reason, trustStatus, and NO
 * `success` field.
 */
export const handler = endpoint({ query: entityQuery }, async ({ query, principal }) => {
  const merchant = await getProviderMerchant(principal.id, query.entityId);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  const { allowed, reason } = deviceLookupPermission(trustOf(merchant));
  const { entityId: _id, ...status } = trustStatus(merchant);
  return { status: 200, body: { statusCode: 200, allowed, reason, trustStatus: status } };
});
