import { endpoint, ok } from '../../http/endpoint';
import { MSG } from '../../platform/errors';
import { listPage, pageFields, pagingOf } from '../../http/paging';
import { merchantNamed, providerMerchantRange, type MerchantSummary } from '../../merchants/store';
import { listTrustQuery, trustLevelMessage, trustStatus } from './schemas';

/**
 * GET /v1/provider/merchant/trust/multiple?trusted=&trustLevel=&deviceLookupEnabled=&limit=&offset=|startingAfter=:
 * `data` is the array of Trust status (with entityName); `hasMore` and (offset pages) `total`
 * are top level.
 */
export const handler = endpoint(
  { query: listTrustQuery, queryMessage: trustLevelMessage('trustLevel', MSG.invalidQuery) },
  async ({ query, principal }) => {
    const { limit: _l, offset: _o, startingAfter: _s, ...filter } = query;
    const page = await listPage<MerchantSummary>(
      providerMerchantRange(principal.id, filter),
      pagingOf(query),
      merchantNamed,
      'one of your merchants',
    );
    const data = page.items.map((m) => {
      const { entityId, ...rest } = trustStatus(m);
      return { entityId, entityName: m.name, ...rest };
    });
    return ok(200, 'Merchant trust statuses retrieved', data, pageFields(page));
  },
);
