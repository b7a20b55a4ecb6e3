import { endpoint, ok } from '../../http/endpoint';
import { DISPUTE_MSG, disputeList } from '../../disputes/views';
import { listQuery } from './schemas';

/** GET /v1/bank/disputes?status=&reference=&limit=&startingAfter= (bank): the disputes it opened, newest first. */
export const handler = endpoint({ query: listQuery, description: 'The disputes you opened, newest first.' }, async ({ query, principal }) =>
  ok(200, DISPUTE_MSG.listed, await disputeList({ bankId: principal.id }, query)),
);
