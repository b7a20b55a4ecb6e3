import { endpoint, ok } from '../../http/endpoint';
import { getProviderMerchantsByIds, listProviderMerchants } from '../../merchants/store';
import { listMerchantsQuery, merchantListItem } from './schemas';

/**
 * GET /v1/provider/merchants?ids=&trusted=&limit=&offset=: the provider's merchants in
 * creation order. `ids` (comma-separated or repeated) narrows to those ids; ids that are
 * unknown or belong to another provider are left out.
 */
export const handler = endpoint({ query: listMerchantsQuery }, async ({ query, principal }) => {
  const filter = { trusted: query.trusted };
  const page = query.ids
    ? await getProviderMerchantsByIds(principal.id, query.ids, filter, query.offset, query.limit)
    : await listProviderMerchants(principal.id, filter, query.offset, query.limit);
  return ok(200, 'Merchants retrieved', { merchants: page.items.map(merchantListItem), total: page.total });
});
