import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { cursorPage } from '../../http/paging';
import { cursorPaging } from '../../http/schemas';
import { equalsFilter, indexRange, pageAfter, type ListRange } from '../../platform/list-page';
import { mapLimit } from '../../platform/retry';
import { nowIso, type Item } from '../../platform/table';
import { PARTICIPANT_STATUSES, type ParticipantStatus } from '../../domain/api-keys';
import { getParticipant, PARTICIPANTS_PK, participantStatus, type Participant } from '../../identity/participant-store';

const query = z.strictObject({
  type: z.enum(['bank', 'merchant', 'provider']).optional(),
  /** `active`: at least one API key works; `inactive`: none does. */
  status: z.enum(PARTICIPANT_STATUSES).optional(),
  /** Part of a name, an e-mail or an id, any case. */
  q: z.string().trim().min(1).max(200).optional(),
  ...cursorPaging,
});

/** Participants whose status is read at once (one Query of its keys each). */
const STATUS_READS = 8;

/**
 * GET /v1/operator/participants?type=&status=&q=&limit=&startingAfter= (operator; DESIGN 10.7):
 * every participant, newest first, from the participants' list (gsi1 `PARTICIPANTS`), optionally
 * of one type, of one status, and whose name, e-mail or id contains `q` (any case). Cursor-paged
 * by participant id. A participant's status comes from its keys (participant-store.ts
 * `participantStatus`): with `status`, the list is read on, a page at a time, until the page is
 * full or the list ends (operators' participants are few; docs/decisions/dashboard-third-pass.md).
 */
export const handler = endpoint(
  {
    query,
    description:
      'List every participant, newest first: filter by type and by status (`active` while one of its API keys works), search by name, e-mail or id.',
  },
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
    const now = nowIso();
    const withStatus = (ps: Participant[]) => mapLimit(ps, STATUS_READS, async (p) => ({ p, status: await participantStatus(p.id, now) }));
    const page = await cursorPage<Participant>(range, query.limit, query.startingAfter, getParticipant, 'a participant in this list');
    let rows = await withStatus(page.items);
    let hasMore = page.hasMore;
    if (query.status) {
      ({ rows, hasMore } = await ofStatus(range, query.status, query.limit, rows, hasMore, withStatus));
    }
    return ok(200, 'Participants retrieved', {
      participants: rows.map(({ p, status }) => ({
        id: p.id,
        type: p.type,
        name: p.name,
        email: p.email,
        status,
        providerId: p.providerId ?? null,
        createdAt: p.createdAt,
      })),
      hasMore,
    });
  },
);

type Row = { p: Participant; status: ParticipantStatus };

/**
 * The first `limit` rows of `status`, reading on past `first` (a page of the list, read) until
 * that many match or the list ends; `hasMore` when another of that status follows.
 */
async function ofStatus(
  range: ListRange,
  status: ParticipantStatus,
  limit: number,
  first: Row[],
  firstHasMore: boolean,
  withStatus: (ps: Participant[]) => Promise<Row[]>,
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const matches = first.filter((r) => r.status === status);
  let last = first.at(-1)?.p;
  let more = firstHasMore;
  while (matches.length <= limit && more && last) {
    const next = await pageAfter<Participant>(range, limit, last as unknown as Item);
    matches.push(...(await withStatus(next.items)).filter((r) => r.status === status));
    last = next.items.at(-1);
    more = next.hasMore;
  }
  return { rows: matches.slice(0, limit), hasMore: matches.length > limit };
}
