/**
 * The 2xx answers of the bank/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { FREQUENCIES } from '../../domain/schedule-dates';
import { SCHEDULE_STATUSES } from '../../recurring/views';
import { TRANSACTION_STATUSES } from '../../transactions/store';
import {
  customerName,
  element,
  batchSummary,
  count,
  decisionDetail,
  iso,
  decision,
  remaining,
  hasMore,
  total,
  currency,
  money,
  refund,
  listEnvelope,
  spendingLimits,
} from '../shapes';
import type { Responses } from '../shapes';
import { RESPONSES as RECURRING } from '../recurring/responses';
import { RESPONSES as MERCHANT } from '../merchant/responses';

const { entityId: _perPhrase, ...status } = element;

export const RESPONSES = {
  'bank-response': {
    data: z.object({ billingRequestId: z.string(), reference: z.string(), status: z.enum(TRANSACTION_STATUSES) }),
  },
  'bank-responses': {
    /** one element of the array answer, in the order of `responses` (DESIGN 8.9) */
    elements: z.object({ billingRequestId: z.string(), ...status }),
  },
  'cancel-subscription': {
    data: RECURRING.cancel.data,
  },
  'decision-history': {
    data: MERCHANT['decision-history'].data,
  },
  'get-batch': {
    data: z.object({
      batchId: z.string(),
      status: z.enum(['COMPLETED', 'PROCESSING']),
      summary: batchSummary,
      data: z.object({ customerIds: z.array(z.string()), createdCount: count }),
      failures: z.array(z.object({ index: count, clientRef: z.string().nullable(), reason: z.string() })),
    }),
  },
  'intent-response': {
    data: decisionDetail,
  },
  'link-device': {
    data: z.object({ customerId: z.string(), deviceId: z.string(), linkedAt: iso }),
  },
  'list-decisions': {
    data: z
      .array(
        decision.extend({
          remaining,
          customer: customerName.nullable(),
          merchantName: z.string().nullable().describe("The merchant's current name (null: the merchant is gone)"),
        }),
      )
      .describe('The page; `hasMore` and, on skip pages, `total` (all matches) are beside it'),
    envelope: listEnvelope(),
  },
  'customer-consents': {
    /** DESIGN 10.5 */
    data: z.object({
      consents: z
        .array(
          z
            .object({
              decisionId: z.string(),
              merchant: z.object({
                id: z.string(),
                name: z.string().nullable().describe("The merchant's current name (null: the merchant is gone)"),
              }),
              decision: z.enum(['approve_once', 'approve_recurring']),
              spendingLimits,
              maxPayments: z.number().int().nullable(),
              validFrom: iso.nullable(),
              validTo: iso.nullable(),
              schedules: z
                .array(
                  z.object({
                    scheduleId: z.string(),
                    status: z.enum(['active', 'paused', 'processing']),
                    amount: money,
                    nextRunAt: iso.nullable(),
                  }),
                )
                .describe('The schedules under the consent that may still bill (active, paused, or with a run at the bank)'),
              remaining: remaining.describe(
                'What the next bill may still take under each limit now (major units; null: no such limit); payments: billings left under maxPayments. The billing path checks the same counters: a bill of the smallest non-null amount succeeds, one kobo more is refused.',
              ),
            })
            .meta({ id: 'CustomerConsent' }),
        )
        .describe(
          'Newest first; each decision that lets a merchant bill now or later (approved, merchant not blocked, validity not ended)',
        ),
      hasMore: z.boolean(),
    }),
  },
  'list-subscriptions': {
    data: z.object({
      subscriptions: z.array(
        z.object({
          scheduleId: z.string(),
          customerId: z.string(),
          entityId: z.string(),
          merchantName: z.string().nullable(),
          amount: money,
          currency,
          frequency: z.enum(FREQUENCIES),
          interval: z.number().int(),
          status: z.enum(SCHEDULE_STATUSES),
          startDate: iso,
          endDate: iso.nullable(),
          nextBillingDate: iso.nullable(),
          totalBillings: count,
          maxBillings: z.number().int().nullable(),
          failedAttempts: count,
          description: z.string().nullable(),
          createdAt: iso,
          pausedAt: iso.nullable(),
          cancelledAt: iso.nullable(),
          completedAt: iso.nullable(),
        }),
      ),
      total,
      hasMore,
    }),
  },
  'refund-response': {
    data: refund,
  },
  'settlement-report': {
    /** DESIGN 8.8 */
    data: z.object({
      businessDate: z.string().describe('The Lagos day reported (yyyy-mm-dd)'),
      debits: money.describe("Billings of the bank's customers that succeeded that day"),
      credits: money.describe('Refunds completed to them that day'),
      net: money.describe('debits − credits'),
      transactionCount: count,
      byMerchant: z.array(
        z.object({
          entityId: z.string(),
          merchantName: z.string(),
          amount: money.describe('Payments minus refunds'),
          count: count.describe('Payments'),
        }),
      ),
    }),
  },
  'skip-subscription': {
    data: RECURRING.skip.data,
  },
  'update-decision': {
    data: decisionDetail,
  },
} satisfies Responses;
