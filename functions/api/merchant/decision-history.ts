import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { historyFor } from '../../decisions/views';

/**
 * GET /v1/customer-decisions/{id}/history (merchant, its own decisions; DESIGN 8.5): every
 * version of the decision, oldest first. Unknown, malformed or another merchant's id: 404.
 */
export const handler = endpoint({}, async ({ params, principal }) => {
  const versions = await historyFor({ merchantId: principal.id }, params.id ?? '');
  if (!versions) throw notFound(MSG.decisionNotFound);
  return ok(200, 'Customer decision history retrieved', { versions });
});
