import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG } from '../../platform/errors';
import { listSimulatedBanks } from '../../sandbox/bank-store';
import { sandboxBankDelaySeconds } from '../../events/sandbox-bank';
import { MAGIC_CUSTOMERS, magicView, SANDBOX_EMAIL_DOMAIN } from '../../sandbox/magic';

/**
 * GET /v1/sandbox/customers (merchant; sandbox only): the simulated banks' magic customers
 * (functions/sandbox/magic.ts) and the simulated banks. Use an email with
 * `GET /v1/customer/banks?email=` (any merchant) or a bank's device id with
 * `POST /v1/customer/device/lookup` (a merchant with device lookup permission).
 */
export const handler = endpoint(
  {
    description:
      "The sandbox's magic customers: each email / device id selects how the simulated bank answers intents and debits. `banks` lists the simulated banks; the exact device ids belong to the oldest one, each later bank's are in its `deviceIds`.",
  },
  async () => {
    const banks = await listSimulatedBanks();
    return ok(200, SANDBOX_MSG.customersListed, {
      emailDomain: SANDBOX_EMAIL_DOMAIN,
      answerDelaySeconds: sandboxBankDelaySeconds(),
      customers: MAGIC_CUSTOMERS.map(magicView),
      banks: banks.map((b) => ({
        bankId: b.bankId,
        bankName: b.bankName,
        createdAt: b.createdAt,
        deviceIds: Object.fromEntries(b.customers.map((c) => [c.outcome, c.deviceId])),
      })),
    });
  },
);
