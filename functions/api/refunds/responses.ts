/**
 * The 2xx answers of the refunds/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { currency, iso, money, refund } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  initiate: {
    data: z.object({
      refundId: z.string(),
      reference: z.string(),
      amount: money,
      currency,
      status: z.enum(['pending', 'processing', 'completed', 'failed']),
      expectedBy: iso,
    }),
  },
  status: {
    data: refund,
  },
} satisfies Responses;
