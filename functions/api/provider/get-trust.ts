import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getProviderMerchant } from '../../merchants/store';
import { limitsOfMerchant } from '../../customers/discovery-store';
import { entityQuery, trustWithLimits } from './schemas';

/** GET /v1/provider/merchant/trust?entityId=: the merchant's Trust status and its discovery limits (DESIGN 10.5). */
export const handler = endpoint({ query: entityQuery }, async ({ query, principal }) => {
  const merchant = await getProviderMerchant(principal.id, query.entityId);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  return ok(200, 'Merchant trust status retrieved', trustWithLimits(merchant, limitsOfMerchant(merchant)));
});
