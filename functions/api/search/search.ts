import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { search } from '../../search/views';

const query = z.strictObject({ q: z.string().trim().min(1).max(200) });

/**
 * GET /v1/search?q= (DESIGN 9.3): what the caller may read that `q` names exactly: the id of a
 * transaction (reference), billing request, refund, schedule, customer, decision, event,
 * delivery, settlement or export; a customer e-mail (case-insensitive); a bank's customer
 * `clientRef`. At most 20, newest first; nothing found: `results: []`.
 */
export const handler = endpoint(
  { query, description: 'Find what you may read by its id, a customer e-mail or (bank) a customer clientRef.' },
  async ({ query, principal }) => ok(200, 'Search results', { results: await search(principal, query.q) }),
);
