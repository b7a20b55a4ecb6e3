import { endpoint, ok } from '../../http/endpoint';
import { notFound } from '../../platform/errors';
import { getMerchantSettlement, settlementLines, toApiSettlement } from '../../ledger/settlement-views';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/settlements/{id} (merchant; a provider with X-Entity-Id): the settlement and its
 * lines (`payment` positive, `refund` negative; they sum to `amount`). Unknown or another
 * merchant's: 404 `Settlement not found`. Past 10,000 lines the list stops there and
 * `linesComplete` is false (an export of kind `settlement` has every line).
 */
export const handler = endpoint({ description: 'One settlement with the payments and refunds it paid.' }, async ({ params, principal }) => {
  const s = await getMerchantSettlement(principal.id, params.id ?? '');
  if (!s) throw notFound(MONEY_MSG.settlementNotFound);
  const { lines, complete } = await settlementLines(s);
  return ok(200, MONEY_MSG.settlementRetrieved, { ...toApiSettlement(s), lines, linesComplete: complete && s.linesComplete !== false });
});
