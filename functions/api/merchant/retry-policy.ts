import { endpoint, ok } from '../../http/endpoint';
import { getParticipant } from '../../identity/participant-store';
import { DEFAULT_RETRY_AFTER_DAYS } from '../../recurring/policy';

/**
 * GET /v1/merchant/retry-policy (merchant; a provider with X-Entity-Id): how failed recurring
 * runs are retried (DESIGN 8.6). `isDefault` when the merchant has not set one.
 */
export const handler = endpoint({ description: 'The retry policy of failed recurring runs' }, async ({ principal }) => {
  const merchant = await getParticipant(principal.id);
  const days = merchant?.retryAfterDays;
  return ok(200, 'Retry policy retrieved', { retryAfterDays: days ?? [...DEFAULT_RETRY_AFTER_DAYS], isDefault: days === undefined });
});
