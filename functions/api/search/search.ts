import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { search } from '../../search/views';

const query = z.strictObject({ q: z.string().trim().min(1).max(200) });

/**
 * GET /v1/search?q= (DESIGN 9.3, 10.7): what the caller may read that `q` names exactly (the id
 * of a transaction (reference), billing request, refund, schedule, customer, decision, event,
 * delivery, settlement, export or dispute; a customer e-mail, any case; a bank's customer
 * `clientRef`), or finds by text (the start of an id, description words, an exact amount) in
 * the caller's last 90 days. At most 20, newest first; nothing found: `results: []`;
 * `complete: false` when the text search stopped at its 2 s.
 */
export const handler = endpoint(
  {
    query,
    description:
      'Find what you may read by its id or the start of one, description words, an exact amount, a customer e-mail or (bank) a customer clientRef.',
  },
  async ({ query, principal }) => ok(200, 'Search results', await search(principal, query.q)),
);
