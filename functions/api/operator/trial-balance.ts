import { endpoint, ok } from '../../http/endpoint';
import { participantNames } from '../../identity/participant-store';
import { trialBalance } from '../../ledger/reports';
import { accountOwner } from '../../ledger/store';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/operator/ledger/trial-balance (operator): Σ debits and Σ credits per ledger
 * account, computed from every ledger entry; `balanced` when they agree and no entry is
 * malformed (DESIGN 8.8). Each account names its type and participant (one BatchGetItem for
 * the names), so a reader needs no key format.
 */
export const handler = endpoint({ description: 'The trial balance of the ledger, computed from its entries.' }, async () => {
  const tb = await trialBalance();
  const owners = tb.accounts.map((a) => accountOwner(a.account));
  const names = await participantNames(owners.flatMap((o) => (o ? [o.participantId] : [])));
  return ok(200, MONEY_MSG.trialBalanceRetrieved, {
    ...tb,
    accounts: tb.accounts.map((a, i) => ({
      ...a,
      type: owners[i]?.type ?? null,
      participantId: owners[i]?.participantId ?? null,
      participantName: owners[i] ? (names.get(owners[i].participantId) ?? null) : null,
    })),
  });
});
