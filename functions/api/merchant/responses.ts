/**
 * The 2xx answers of the merchant/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { currency, money, billedElement, element, decisionVersion, decisionDetail, remaining, decision, listEnvelope } from '../shapes';
import type { Responses } from '../shapes';

const retryPolicy = z
  .object({
    retryAfterDays: z
      .array(z.number().int())
      .describe('Retry i of a failed run comes retryAfterDays[i] days after the attempt before it, on a Lagos business day'),
    isDefault: z.boolean().describe('true: the merchant has not set a policy ([1, 1, 1])'),
  })
  .meta({ id: 'RetryPolicy' });

export const RESPONSES = {
  balance: {
    data: z.object({
      totalBalance: money,
      unsettledBalance: money,
      settledBalance: money,
      currency,
      bankAccountInfo: z.object({
        bankName: z.string().nullable(),
        accountNumber: z.string().nullable(),
        accountName: z.string().nullable(),
      }),
      withdrawalInfo: z.object({ isSupported: z.boolean(), minimumAmount: money, maximumAmount: money }),
      nextSettlement: z.object({ amount: money, currency, date: z.string() }).nullable(),
    }),
  },
  bill: {
    /** one element of the per-phrase array answer */
    elements: z.object({ ...element, phrase: z.string(), ...billedElement }),
  },
  'billing-intent': {
    /** one element of the per-phrase array answer */
    elements: z.object({ ...element, lookupPhrase: z.string(), intentId: z.string().optional() }),
  },
  'decision-history': {
    /** DESIGN 8.5 */
    data: z.object({ versions: z.array(decisionVersion).describe('Oldest first; nothing is overwritten') }),
  },
  'device-lookup': {
    data: z.object({ lookupPhrase: z.string() }),
  },
  'email-lookup': {
    data: z.object({ banks: z.array(z.object({ bankId: z.string(), bankName: z.string(), lookupPhrase: z.string() })) }),
  },
  'get-decision': {
    data: decisionDetail.extend({ remaining }),
  },
  'list-decisions': {
    data: z.array(decision).describe('The page; `hasMore` and, on skip pages, `total` (all matches) are beside it'),
    envelope: listEnvelope(),
  },
  pay: {
    /** one element of the per-phrase array answer */
    elements: z.object({ ...element, lookupPhrase: z.string(), ...billedElement }),
  },
  'retry-policy': {
    data: retryPolicy,
  },
  'set-retry-policy': {
    data: retryPolicy,
  },
} satisfies Responses;
