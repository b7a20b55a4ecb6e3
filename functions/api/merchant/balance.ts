import { clockNow } from '../../platform/clock';
import { config } from '../../config';
import { nextBusinessDay } from '../../domain/business-days';
import { lagosDate, startOfLagosDay } from '../../domain/lagos-time';
import { toMajor } from '../../domain/money';
import { endpoint, ok } from '../../http/endpoint';
import { LEDGER_CURRENCY, readBalance } from '../../ledger/store';
import { getParticipant } from '../../identity/participant-store';
import { MONEY_MSG } from '../../transactions/messages';

/**
 * GET /v1/balance/details (merchant; a provider with X-Entity-Id): the spec's Balance details.
 *
 * - balances: settled, the sum of the merchant's balance shards; unsettled, the sum of its
 *   pending settlement batches (both always equal the ledger).
 * - nextSettlement: the earliest pending settlement day with funds, at 00:00 Lagos of that
 *   day; with nothing pending, amount 0 and the start of the next business day (DESIGN 6.9).
 * - bankAccountInfo: the merchant's settlement account as registered, unmasked (it is the
 *   caller's own account and the contract says it is shown; docs/decisions/ledger.md); nulls when unset.
 * - withdrawalInfo: WITHDRAWAL_MIN / WITHDRAWAL_MAX; supported once a bank account is set.
 */
export const handler = endpoint(
  {
    description: "The merchant's balance: settled and unsettled funds, the next settlement, payout account and withdrawal bounds.",
  },
  async ({ principal }) => {
    const merchantId = principal.id;
    const now = clockNow();
    const [balance, merchant] = await Promise.all([readBalance(merchantId), getParticipant(merchantId)]);
    const account = merchant?.bankAccount;
    const bankAccountInfo = {
      bankName: account?.bankName ?? null,
      accountNumber: account?.accountNumber ?? null,
      accountName: account?.accountName ?? null,
    };
    const next = balance.pending.find((p) => p.amount > 0);
    const currency = LEDGER_CURRENCY;
    return ok(200, MONEY_MSG.balanceRetrieved, {
      totalBalance: toMajor(balance.unsettled + balance.settled),
      unsettledBalance: toMajor(balance.unsettled),
      settledBalance: toMajor(balance.settled),
      currency,
      bankAccountInfo,
      withdrawalInfo: {
        isSupported: Boolean(bankAccountInfo.bankName && bankAccountInfo.accountNumber),
        minimumAmount: config.withdrawalMin(),
        maximumAmount: config.withdrawalMax(),
      },
      nextSettlement: next
        ? { amount: toMajor(next.amount), currency, date: startOfLagosDay(next.date).toISOString() }
        : { amount: 0, currency, date: startOfLagosDay(nextBusinessDay(lagosDate(now))).toISOString() },
    });
  },
);
