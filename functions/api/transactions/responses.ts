/**
 * The 2xx answers of the transactions/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { customerName, refund, transaction as bare, hasMore, total } from '../shapes';
import type { Responses } from '../shapes';
import { eventResponse } from '../events/schemas';

/** A transaction as its list and its read show it: with the customer's name and e-mail beside the id (DESIGN 10.7). */
const transaction = bare.extend({ customer: customerName.nullable() });

export const RESPONSES = {
  details: {
    data: transaction.extend({
      refunds: z.array(refund).describe('Its refunds, newest first'),
      events: z
        .array(eventResponse)
        .describe(
          "The caller's events of it, its refunds and its disputes, oldest first, each with the caller's deliveries (kept 30 days; none for a transaction made before release 3's event ids)",
        ),
    }),
  },
  history: {
    data: z.object({ transactions: z.array(transaction), total, hasMore }),
  },
} satisfies Responses;
