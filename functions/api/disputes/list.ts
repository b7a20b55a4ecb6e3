import { endpoint, ok } from '../../http/endpoint';
import { DISPUTE_MSG, disputeList } from '../../disputes/views';
import { listQuery } from './schemas';

/** GET /v1/disputes?status=&reference=&limit=&startingAfter= (merchant; a provider with X-Entity-Id): its disputes, newest first. */
export const handler = endpoint(
  { query: listQuery, description: 'Disputes of your transactions, newest first.' },
  async ({ query, principal }) => ok(200, DISPUTE_MSG.listed, await disputeList({ merchantId: principal.id }, query)),
);
