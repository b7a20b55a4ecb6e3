import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { getProviderMerchant } from '../../merchants/store';
import { entityQuery, merchantView } from './schemas';

/** GET /v1/provider/merchant?entityId=: one of the provider's merchants (no keys, no bank account). */
export const handler = endpoint({ query: entityQuery }, async ({ query, principal }) => {
  const merchant = await getProviderMerchant(principal.id, query.entityId);
  if (!merchant) throw notFound(MSG.merchantNotFound);
  return ok(200, 'Merchant retrieved', merchantView(merchant));
});
