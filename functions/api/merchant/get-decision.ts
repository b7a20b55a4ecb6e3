import { clockNow } from '../../platform/clock';
import { isDecisionIdShaped } from '../../domain/decisions';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { decisionRecord, decisionUsage, getDecision } from '../../decisions/views';

/**
 * GET /v1/customer-decisions/{id} (merchant, its own decisions): the full Customer decision,
 * including lookupPhrase and lastUpdated, and `remaining` for the current periods (DESIGN 8.5).
 * Unknown, malformed or another merchant's id: 404.
 */
export const handler = endpoint({}, async ({ params, principal }) => {
  const id = params.id;
  const d = isDecisionIdShaped(id) ? await getDecision(id) : undefined;
  if (!d || d.merchantId !== principal.id) throw notFound(MSG.decisionNotFound);
  const { remaining, lastUsed } = (await decisionUsage([d], clockNow())).get(d.id)!;
  return ok(200, 'Customer decision retrieved', { ...decisionRecord(d, lastUsed), remaining });
});
