import { useState, type FormEvent } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { Link, navigate, useSearchParams } from '../router';
import { useSession } from '../session';
import type { Schemas } from '../sdk-types';
import type { ParticipantKind } from '../../../functions/routes';
import { ErrorMessage, Loading, Page, Table, useLoad } from '../ui';

type Result = Schemas['SearchResult'];

/** The dashboard page of a found thing for the viewer (null: none of its own; the results list shows it). */
export function pageOf(r: Pick<Result, 'kind' | 'id'>, viewer: ParticipantKind): string | null {
  const id = encodeURIComponent(r.id);
  switch (r.kind) {
    case 'transaction':
      return `transactions/${id}`;
    case 'delivery':
      return `deliveries/${id}`;
    case 'event':
      return `events/${id}`;
    case 'dispute':
      return viewer === 'bank' || viewer === 'merchant' ? `disputes/${id}` : null;
    case 'decision':
      return viewer === 'bank' || viewer === 'merchant' ? `decisions/${id}` : null;
    case 'schedule':
      // A bank reads its customers' schedules in lists (no schedule read of its own): no page.
      return viewer === 'merchant' ? `schedules/${id}` : null;
    case 'customer':
      return `transactions?customerId=${id}`;
    default:
      return null;
  }
}

/** The header's Search field (DESIGN 9.7): one result with a page opens it; otherwise the results page. */
export function SearchField() {
  const s = useSession();
  const [error, setError] = useState<Error>();
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const q = String(new FormData(e.currentTarget).get('q') ?? '').trim();
    if (!q) return;
    setError(undefined);
    // The operator searches participants (by name, e-mail or id) on Participants.
    if (s.acting!.kind === 'operator') return navigate(`participants?q=${encodeURIComponent(q)}`);
    try {
      const found = await unwrap(s.client.GET('/v1/search', { params: { query: { q } } }));
      // One thing found, or one customer (with the caller's decisions for it): its page at once.
      const customers = found.results.filter((r) => r.kind === 'customer');
      const one =
        found.results.length === 1
          ? found.results[0]
          : customers.length === 1 && found.results.every((r) => r.kind === 'customer' || r.kind === 'decision')
            ? customers[0]
            : undefined;
      const only = one ? pageOf(one, s.acting!.kind) : null;
      navigate(only ?? `search?q=${encodeURIComponent(q)}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a form in the search landmark (<search> has no JSX type in React 19's DOM types here)
    <form role="search" className="search" onSubmit={onSubmit}>
      <label htmlFor="site-search" className="visually-hidden">
        Search
      </label>
      <input
        id="site-search"
        name="q"
        type="search"
        maxLength={200}
        placeholder={s.acting!.kind === 'operator' ? 'Participant name, e-mail or id' : 'Id, words, amount or e-mail'}
      />
      <button type="submit" className="secondary">
        Find
      </button>
      {error && (
        <span className="visually-hidden" role="alert">
          {error.message}
        </span>
      )}
    </form>
  );
}

/** `/dashboard/search?q=`: what the search found, each opening its page. */
export function SearchPage() {
  const s = useSession();
  const [params] = useSearchParams();
  const q = params.get('q') ?? '';
  const found = useLoad(
    () =>
      q ? unwrap(s.client.GET('/v1/search', { params: { query: { q } } })) : Promise.resolve({ results: [] as Result[], complete: true }),
    [s.client, q],
  );
  return (
    <Page title="Search">
      <p>
        Results for “{q}”: ids and their first characters, references, description words and exact amounts of the last 90 days, customer
        e-mails{s.acting!.kind === 'bank' ? ' and client references' : ''}.
      </p>
      {found.data && !found.data.complete && (
        <p role="status" className="notice">
          The search stopped after 2 seconds: there may be more. Add words to narrow it.
        </p>
      )}
      {found.loading && <Loading />}
      <ErrorMessage error={found.error} />
      {found.data && (
        <Table
          caption="Search results"
          rows={found.data.results}
          rowKey={(r) => `${r.kind}:${r.id}`}
          empty="Nothing found. Try the start of an id (6 characters or more), words of a description, an amount or an e-mail."
          columns={[
            { header: 'Kind', cell: (r) => r.kind.replace('_', ' ') },
            {
              header: 'Id',
              cell: (r) => {
                const to = pageOf(r, s.acting!.kind);
                return to ? (
                  <Link to={to}>
                    <code>{r.id}</code>
                  </Link>
                ) : (
                  <code>{r.id}</code>
                );
              },
            },
            { header: 'What', cell: (r) => r.title },
            { header: 'Created', cell: (r) => when(r.createdAt) },
          ]}
        />
      )}
    </Page>
  );
}
