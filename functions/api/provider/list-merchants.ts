import { endpoint, ok } from '../../http/endpoint';
import { listPage, pageFields, pageOfFew, pagingOf } from '../../http/paging';
import { getProviderMerchantsByIds, merchantNamed, providerMerchantRange, type MerchantSummary } from '../../merchants/store';
import { listMerchantsQuery, merchantListItem } from './schemas';

const OF_YOURS = 'one of your merchants';

/**
 * GET /v1/provider/merchants?ids=&trusted=&limit=&offset=|startingAfter=: the provider's
 * merchants in creation order. `ids` (comma-separated or repeated) narrows to those ids; ids
 * that are unknown or belong to another provider are left out.
 */
export const handler = endpoint({ query: listMerchantsQuery }, async ({ query, principal }) => {
  const filter = { trusted: query.trusted };
  const paging = pagingOf(query);
  const range = providerMerchantRange(principal.id, filter);
  const page = query.ids
    ? await pageOfFew(range, paging, await getProviderMerchantsByIds(principal.id, query.ids, filter), merchantNamed, OF_YOURS)
    : await listPage<MerchantSummary>(range, paging, merchantNamed, OF_YOURS);
  return ok(200, 'Merchants retrieved', { merchants: page.items.map(merchantListItem), ...pageFields(page) });
});
