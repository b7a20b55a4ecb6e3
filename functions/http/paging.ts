/**
 * The two ways a list is paged (DESIGN 6.4, 8.9), chosen per request, one place for both:
 * `startingAfter` (the id of the last item of the previous page: the next page, `hasMore`,
 * no `total`) or the release-1 `skip`/`offset` (`total` and `hasMore`). A `startingAfter`
 * that names no item of the caller's list (another participant's, or none at all) is 400
 * `Invalid query parameters` with a detail on `startingAfter`: nothing of anyone else is
 * read past that check. `skip + limit` above 10,000 is 400 `Use startingAfter to page
 * beyond 10,000 items`.
 */
import { badRequest, MSG, messages } from '../platform/errors';
import { cursorSk, inPartition, MAX_SKIP_WINDOW, pageAfter, pageAt, readRange, type ListRange } from '../platform/list-page';
import type { Item } from '../platform/table';

export const PAGING_MSG = messages({
  beyondSkipWindow: [400, 'skip_window_exceeded', 'Use startingAfter to page beyond 10,000 items'],
});

export interface Paging {
  limit: number;
  skip: number;
  startingAfter?: string;
}

/** The paging of a validated list query (`skip` or `offset`, whichever the list names it). */
export function pagingOf(q: { limit: number; skip?: number; offset?: number; startingAfter?: string }): Paging {
  const field = q.offset !== undefined ? 'offset' : 'skip';
  const skip = q.offset ?? q.skip ?? 0;
  if (q.startingAfter !== undefined && skip > 0)
    throw badRequest(MSG.invalidQuery, [{ path: field, message: 'cannot be combined with startingAfter' }]);
  if (skip + q.limit > MAX_SKIP_WINDOW)
    throw badRequest(PAGING_MSG.beyondSkipWindow, [{ path: field, message: `${field} + limit must not exceed ${MAX_SKIP_WINDOW}` }]);
  return { limit: q.limit, skip, ...(q.startingAfter !== undefined ? { startingAfter: q.startingAfter } : {}) };
}

export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
  /** Skip/offset pages only (a startingAfter page does not count the list; docs/decisions/list-paging.md). */
  total?: number;
}

/** The 400 of a `startingAfter` that names nothing in the caller's list. */
export const badCursor = (what: string) => badRequest(MSG.invalidQuery, [{ path: 'startingAfter', message: `must be the id of ${what}` }]);

/**
 * A page of `range` as `paging` asks. `cursor` reads the item an id names (any owner's, or
 * undefined); it counts only when it lies in `range`'s partition (the caller's own list).
 */
export async function listPage<T>(
  range: ListRange,
  paging: Paging,
  cursor: (id: string) => Promise<Item | undefined>,
  what: string,
): Promise<ListPage<T>> {
  if (paging.startingAfter === undefined) return pageAt<T>(range, paging.skip, paging.limit);
  const after = await cursor(paging.startingAfter);
  if (!inPartition(range, after)) throw badCursor(what);
  return pageAfter<T>(range, paging.limit, after);
}

/**
 * A page by cursor alone (no `total`, so no COUNT Query of the whole list): the first `limit`
 * items, or the `limit` after the item `startingAfter` names (which must lie in the list).
 */
export async function cursorPage<T>(
  range: ListRange,
  limit: number,
  startingAfter: string | undefined,
  cursor: (id: string) => Promise<Item | undefined>,
  what: string,
): Promise<ListPage<T>> {
  if (startingAfter !== undefined) return listPage<T>(range, { limit, skip: 0, startingAfter }, cursor, what);
  const items = await readRange<T>(range, limit + 1);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** The paging fields of a list's answer: `hasMore`, and `total` when the page has one. */
export const pageFields = (page: Pick<ListPage<unknown>, 'hasMore' | 'total'>) => ({
  ...(page.total !== undefined ? { total: page.total } : {}),
  hasMore: page.hasMore,
});

/**
 * A page of the few items a pinned filter already read (one decision named by its pair or
 * phrase), with the same rules as `listPage`: `candidates` are items of `range`'s partition
 * in its order; a cursor must lie in that partition too.
 */
export async function pageOfFew<T extends object>(
  range: ListRange,
  paging: Paging,
  candidates: T[],
  cursor: (id: string) => Promise<Item | undefined>,
  what: string,
): Promise<ListPage<T>> {
  if (paging.startingAfter === undefined) {
    const items = candidates.slice(paging.skip, paging.skip + paging.limit);
    return { items, total: candidates.length, hasMore: paging.skip + items.length < candidates.length };
  }
  const at = cursorSk(range, await cursor(paging.startingAfter));
  if (at === undefined) throw badCursor(what);
  const skOf = (c: T) => (c as Item)[range.skName] as string;
  const rest = candidates.filter((c) => (range.ascending ? skOf(c) > at : skOf(c) < at));
  return { items: rest.slice(0, paging.limit), hasMore: rest.length > paging.limit };
}
