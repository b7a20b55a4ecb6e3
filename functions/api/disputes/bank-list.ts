import { endpoint, ok } from '../../http/endpoint';
import { listPage, pagingOf } from '../../http/paging';
import { disputeItemNamed, disputeRange, DISPUTE_MSG, disputeView, parseDispute } from '../../disputes/views';
import type { Item } from '../../platform/table';
import { listQuery } from './schemas';

/** GET /v1/bank/disputes?status=&reference=&limit=&startingAfter= (bank): the disputes it opened, newest first. */
export const handler = endpoint(
  { query: listQuery, description: 'The disputes you opened, newest first.' },
  async ({ query, principal }) => {
    const range = disputeRange({ bankId: principal.id }, query);
    const page = await listPage<Item>(range, pagingOf(query), disputeItemNamed, 'one of your disputes');
    return ok(200, DISPUTE_MSG.listed, { disputes: page.items.map((it) => disputeView(parseDispute(it)!)), hasMore: page.hasMore });
  },
);
