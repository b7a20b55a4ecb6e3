import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { SANDBOX_MSG } from '../../platform/errors';
import { listSimulatedBanks } from '../../sandbox/bank-store';
import { sandboxBankDelaySeconds } from '../../events/sandbox-bank';
import { MAGIC_CUSTOMERS, magicView, SANDBOX_EMAIL_DOMAIN } from '../../sandbox/magic';

const limits = z.object({ single: z.number(), daily: z.number(), weekly: z.number(), monthly: z.number() }).partial();

const response = z.object({
  emailDomain: z.string(),
  answerDelaySeconds: z.number(),
  customers: z.array(
    z.object({
      outcome: z.string(),
      email: z.string(),
      deviceId: z.string(),
      description: z.string(),
      intentResponse: z.object({ customerDecision: z.string(), spendingLimits: limits, blockMerchant: z.boolean() }).nullable(),
      debitResponse: z.enum(['approve', 'deny', 'suspended']).nullable(),
    }),
  ),
  banks: z.array(
    z.object({ bankId: z.string(), bankName: z.string(), createdAt: z.string(), deviceIds: z.record(z.string(), z.string()) }),
  ),
});

/**
 * GET /v1/sandbox/customers (merchant; sandbox only): the simulated banks' magic customers
 * (functions/sandbox/magic.ts) and the simulated banks. Use an email with
 * `GET /v1/customer/banks?email=` (any merchant) or a bank's device id with
 * `POST /v1/customer/device/lookup` (a merchant with device lookup permission).
 */
export const handler = endpoint(
  {
    response,
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
