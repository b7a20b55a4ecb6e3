import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { badRequest, MSG } from '../../platform/errors';
import { getMerchantSettlement, listSettlements, toApiSettlement } from '../../ledger/settlement-views';
import { MONEY_MSG } from '../../transactions/messages';
import { cursorPaging } from '../../http/schemas';

const query = z.strictObject(cursorPaging);

/**
 * GET /v1/settlements?limit=&startingAfter= (merchant; a provider with X-Entity-Id): the
 * merchant's settlements, newest first (DESIGN 8.8). `startingAfter` must name one of the
 * merchant's settlements: 400 `Invalid query parameters` otherwise.
 */
export const handler = endpoint({ query, description: "The merchant's settlements, newest first." }, async ({ query, principal }) => {
  const after = query.startingAfter ? await getMerchantSettlement(principal.id, query.startingAfter) : undefined;
  if (query.startingAfter && !after)
    throw badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: 'must be the id of one of your settlements' }]);
  const page = await listSettlements(principal.id, query.limit, after);
  return ok(200, MONEY_MSG.settlementsRetrieved, { settlements: page.settlements.map(toApiSettlement), hasMore: page.hasMore });
});
