/**
 * The 2xx answers of the sandbox/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { DECISION_VALUES } from '../../domain/decisions';
import { TRANSACTION_STATUSES } from '../../transactions/store';
import { dispute, refund, iso, spendingLimits, schedule, count, currency, money } from '../shapes';
import type { Responses } from '../shapes';

const testClock = z
  .object({
    clockId: z.string(),
    name: z.string().nullable(),
    frozenTime: iso.describe("The clock's time (while advancing: how far it got)"),
    status: z.enum(['ready', 'advancing']),
    targetTime: iso.optional().describe('While advancing: where it is going'),
    createdAt: iso,
  })
  .meta({ id: 'TestClock' });

export const RESPONSES = {
  'advance-test-clock': {
    data: testClock,
  },
  'dispute-transaction': { data: dispute },
  'complete-refund': {
    data: refund,
  },
  'create-test-clock': {
    data: testClock,
  },
  customers: {
    data: z.object({
      emailDomain: z.string(),
      answerDelaySeconds: z.number(),
      customers: z.array(
        z.object({
          outcome: z.string(),
          email: z.string(),
          deviceId: z.string(),
          description: z.string(),
          intentResponse: z.object({ customerDecision: z.enum(DECISION_VALUES), spendingLimits, blockMerchant: z.boolean() }).nullable(),
          debitResponse: z.string().nullable(),
          disputeReason: z
            .string()
            .nullable()
            .describe('The reason the simulated bank disputes every approved debit with; null: it never disputes'),
        }),
      ),
      banks: z.array(z.object({ bankId: z.string(), bankName: z.string(), createdAt: iso, deviceIds: z.record(z.string(), z.string()) })),
    }),
  },
  'delete-test-clock': {
    /** DESIGN 8.7 */
    data: z.object({ clockId: z.string(), deleted: z.literal(true) }),
  },
  'expire-billing': {
    data: z.object({
      billingRequestId: z.string(),
      reference: z.string(),
      status: z.enum(TRANSACTION_STATUSES),
      reason: z.string(),
    }),
  },
  'get-test-clock': {
    data: testClock,
  },
  'run-recurring': {
    data: schedule,
  },
  'run-settlements': {
    data: z.object({
      settlements: z.array(z.object({ settlementId: z.string(), settlementDate: z.string(), amount: money, count })),
      settledAmount: money,
      remainingAmount: money.describe('Still unsettled when the run answered (a large backlog: call again)'),
      currency,
    }),
  },
} satisfies Responses;
