/**
 * The 2xx answers of the transactions/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { refund, transaction, hasMore, total } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  details: {
    data: transaction.extend({ refunds: z.array(refund).describe('Its refunds, newest first') }),
  },
  history: {
    data: z.object({ transactions: z.array(transaction), total, hasMore }),
  },
} satisfies Responses;
