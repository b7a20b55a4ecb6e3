import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { cursorPage } from '../../http/paging';
import { cursorPaging } from '../../http/schemas';
import { equalsFilter, indexRange } from '../../platform/list-page';
import { getParticipant, PARTICIPANTS_PK, type Participant } from '../../identity/participant-store';

const query = z.strictObject({
  type: z.enum(['bank', 'merchant', 'provider']).optional(),
  /** Part of a name, an e-mail or an id, any case. */
  q: z.string().trim().min(1).max(200).optional(),
  ...cursorPaging,
});

/**
 * GET /v1/operator/participants?type=&q=&limit=&startingAfter= (operator; DESIGN 10.7): every
 * participant, newest first, from the participants' list (gsi1 `PARTICIPANTS`), optionally of
 * one type and whose name, e-mail or id contains `q` (any case). Cursor-paged by participant id.
 */
export const handler = endpoint(
  { query, description: 'List every participant, newest first: filter by type, search by name, e-mail or id.' },
  async ({ query }) => {
    const contains = query.q?.toLowerCase();
    const range = indexRange(
      'gsi1',
      PARTICIPANTS_PK,
      equalsFilter(
        { type: query.type },
        contains ? [{ expression: 'contains(#fst, :fst)', names: { '#fst': 'searchText' }, values: { ':fst': contains } }] : [],
      ),
    );
    const page = await cursorPage<Participant>(range, query.limit, query.startingAfter, getParticipant, 'a participant in this list');
    return ok(200, 'Participants retrieved', {
      participants: page.items.map((p) => ({
        id: p.id,
        type: p.type,
        name: p.name,
        email: p.email,
        providerId: p.providerId ?? null,
        createdAt: p.createdAt,
      })),
      hasMore: page.hasMore,
    });
  },
);
