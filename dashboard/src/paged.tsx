/**
 * Every list of the dashboard (DESIGN 9.7): its filters, page size and the cursors of the pages
 * before the one shown live in the URL, so `Next page`, `Previous page`, reload, the back button
 * and a shared link all show the same page. One hook serves every list page.
 */
import { useId, type ReactNode } from 'react';
import { useSearchParams } from './router';
import { useLoad, type Loaded } from './ui';

/** One page of a list as the API answers it (`startingAfter` paging: DESIGN 8.9). */
export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
}

/** Rows per page the dashboard offers (the API's `limit` allows 1-100: DESIGN 6.4). */
export const PAGE_SIZES = [20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 50;

export interface PagedList<T, F extends string> {
  /** The filters in the URL (absent ones undefined). */
  filters: Record<F, string | undefined>;
  /** New filters: back to the first page. */
  setFilters(next: Partial<Record<F, string | undefined>>): void;
  list: Loaded<ListPage<T>>;
  /**
   * The rows shown are of the URL's page: true once it loaded, and while the same page loads
   * again (a refresh keeps its rows on screen); false while another page or filter loads.
   */
  ready: boolean;
  rows: T[];
  /** The page shown, from 1. */
  page: number;
  /** `Previous page`, `Next page` and the page size. */
  pager: ReactNode;
  /** Changes whenever the URL's state of this list does: a key that resets the filter form's defaults (back button). */
  formKey: string;
}

/**
 * A cursor-paged list whose state is the URL's query: `filters` names its filter parameters;
 * `load` reads one page with them (`startingAfter` = the last row's cursor of the page before);
 * `cursorOf` is a row's id as the API's `startingAfter` takes it. `ns` prefixes the list's own
 * parameters when a page shows two paged lists (`<ns>-pages`, `<ns>-limit`); other parameters
 * of the URL are kept.
 */
export function usePagedList<T, F extends string>(opts: {
  filters: readonly F[];
  load(filters: Record<F, string | undefined>, paging: { limit: number; startingAfter?: string }): Promise<ListPage<T>>;
  cursorOf(row: T): string;
  /** What else the load depends on (the client). */
  deps: unknown[];
  ns?: string;
}): PagedList<T, F> {
  const [q, setQ] = useSearchParams();
  const param = (name: string) => (opts.ns ? `${opts.ns}-${name}` : name);
  const filters = Object.fromEntries(opts.filters.map((f) => [f, q.get(f) || undefined])) as Record<F, string | undefined>;
  const pages = (q.get(param('pages')) ?? '').split(',').filter(Boolean);
  const asked = Number(q.get(param('limit')));
  const limit = (PAGE_SIZES as readonly number[]).includes(asked) ? asked : DEFAULT_PAGE_SIZE;
  const startingAfter = pages.at(-1);
  const key = JSON.stringify([opts.filters.map((f) => filters[f]), limit, startingAfter]);
  const list = useLoad(
    async () => ({ ...(await opts.load(filters, { limit, ...(startingAfter ? { startingAfter } : {}) })), key }),
    [...opts.deps, key],
  );
  const ready = list.data?.key === key;
  /** The URL with `changes` applied (undefined or empty: removed), every other parameter kept. */
  const update = (changes: Record<string, string | undefined>) => {
    const next: Record<string, string | undefined> = Object.fromEntries(q.entries());
    for (const [k, v] of Object.entries(changes)) next[k] = v || undefined;
    setQ(next);
  };
  const rows = ready ? list.data!.items : [];
  const pager = ready && (
    <Pager
      hasMore={list.data!.hasMore}
      lastId={rows.length ? opts.cursorOf(rows[rows.length - 1]!) : undefined}
      pages={pages}
      onPages={(next) => update({ [param('pages')]: next.join(',') })}
      limit={limit}
      onLimit={(n) => update({ [param('limit')]: n === DEFAULT_PAGE_SIZE ? undefined : String(n), [param('pages')]: undefined })}
    />
  );
  return {
    filters,
    setFilters: (next) => update({ ...next, [param('pages')]: undefined }),
    list,
    ready,
    rows,
    page: pages.length + 1,
    pager,
    formKey: opts.filters.map((f) => `${f}=${filters[f] ?? ''}`).join('&'),
  };
}

/**
 * The paging of a cursor-paged list (DESIGN 9.7; `usePagedList` in paged.tsx keeps its state in
 * the URL): `Previous page`, `Next page` (`pages` are the cursors of the pages before this one)
 * and `Rows per page`.
 */
function Pager({
  hasMore,
  lastId,
  pages,
  onPages,
  limit,
  onLimit,
}: {
  hasMore: boolean;
  lastId?: string;
  pages: string[];
  onPages(next: string[]): void;
  limit: number;
  onLimit(n: number): void;
}) {
  const id = useId();
  // Nothing to page through: an empty first page.
  if (!lastId && pages.length === 0) return null;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a <fieldset> would need a visible legend; a labelled group of paging controls is what it is
    <div role="group" aria-label="Pages" className="row pager">
      <button type="button" className="secondary" disabled={pages.length === 0} onClick={() => onPages(pages.slice(0, -1))}>
        Previous page
      </button>
      <span>Page {pages.length + 1}</span>
      <button type="button" className="secondary" disabled={!hasMore || !lastId} onClick={() => onPages([...pages, lastId!])}>
        Next page
      </button>
      <label htmlFor={id} className="inline">
        Rows per page
      </label>
      <select id={id} value={limit} onChange={(e) => onLimit(Number(e.target.value))}>
        {PAGE_SIZES.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </div>
  );
}
