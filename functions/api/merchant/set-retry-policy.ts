import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { setRetryPolicy } from '../../identity/participant-store';
import { RETRY_POLICY_BOUNDS } from '../../recurring/policy';

const { maxRetries, minDays, maxDays } = RETRY_POLICY_BOUNDS;

const bodySchema = z.strictObject({
  retryAfterDays: z
    .array(z.number().int().min(minDays).max(maxDays))
    .min(1)
    .max(maxRetries)
    .refine((days) => days.every((v, i) => i === 0 || v >= days[i - 1]!), 'must not decrease'),
});

/**
 * PUT /v1/merchant/retry-policy {retryAfterDays} (DESIGN 8.6): 1-5 retries, each 1-30 days after
 * the attempt before it, never decreasing (the default [1, 1, 1] is today's behaviour). Applies
 * to runs that start after it; a run already at the bank keeps the retry it was started with
 * (what its `billing.response` announces). Audited.
 */
export const handler = endpoint(
  { body: bodySchema, description: 'Set the retry policy of failed recurring runs' },
  async ({ body, principal, audit }) => {
    await setRetryPolicy(principal.id, body.retryAfterDays, audit);
    return ok(200, 'Retry policy updated', { retryAfterDays: body.retryAfterDays, isDefault: false });
  },
);
