import { endpoint, ok } from '../../http/endpoint';
import { trialBalance } from '../../ledger/reports';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/operator/ledger/trial-balance (operator): Σ debits and Σ credits per ledger
 * account, computed from every ledger entry; `balanced` when they agree and no entry is
 * malformed (DESIGN 8.8).
 */
export const handler = endpoint({ description: 'The trial balance of the ledger, computed from its entries.' }, async () => {
  return ok(200, MONEY_MSG.trialBalanceRetrieved, await trialBalance());
});
