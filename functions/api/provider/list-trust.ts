import { endpoint, ok } from '../../http/endpoint';
import { MSG } from '../../http/errors';
import { listProviderMerchants } from '../../merchants/store';
import { listTrustQuery, trustLevelMessage, trustStatus } from './schemas';

/**
 * GET /v1/provider/merchant/trust/multiple?trusted=&trustLevel=&deviceLookupEnabled=&limit=&offset=:
 * `data` is the array of Trust status (with entityName), `total` is top level.
 */
export const handler = endpoint(
  { query: listTrustQuery, queryMessage: trustLevelMessage('trustLevel', MSG.invalidQuery) },
  async ({ query, principal }) => {
    const { limit, offset, ...filter } = query;
    const page = await listProviderMerchants(principal.id, filter, offset, limit);
    const data = page.items.map((m) => {
      const { entityId, ...rest } = trustStatus(m);
      return { entityId, entityName: m.name, ...rest };
    });
    return ok(200, 'Merchant trust statuses retrieved', data, { total: page.total });
  },
);
