import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { Link } from '../router';
import { ErrorMessage, Json, Loading, Page, Select, Table, useLoad, type Column } from '../ui';
import { EVENT_TYPES } from '../../../functions/events/types';

type EventType = (typeof EVENT_TYPES)[number];

/** An event's id, type and time: the first columns of every table of events. */
export const eventColumns = <E extends { id: string; type: string; createdAt: string }>(): Column<E>[] => [
  { header: 'Event', cell: (e) => <code>{e.id}</code> },
  { header: 'Type', cell: (e) => e.type },
  { header: 'Created', cell: (e) => when(e.createdAt) },
];

/** The events sent to the caller, newest first: filters (`type`, `deliverySuccess`) and the page in the URL; `View` opens an event's page. */
export function EventsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['type', 'deliverySuccess'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const query = {
        ...paging,
        ...(f.type ? { type: f.type as EventType } : {}),
        ...(f.deliverySuccess ? { deliverySuccess: f.deliverySuccess as 'true' | 'false' } : {}),
      };
      const r = await unwrap(s.client.GET('/v1/events', { params: { query } }));
      return { items: r.events, hasMore: r.hasMore };
    },
    cursorOf: (e) => e.id,
  });
  return (
    <Page title="Events">
      <div className="row filters" key={paged.formKey}>
        <Select
          label="Event type"
          name="type"
          options={[['', 'All types'], ...EVENT_TYPES]}
          defaultValue={paged.filters.type ?? ''}
          onChange={(v) => paged.setFilters({ type: v })}
        />
        <Select
          label="Deliveries"
          name="deliverySuccess"
          options={[
            ['', 'Any'],
            ['true', 'All delivered'],
            ['false', 'Some failed'],
          ]}
          defaultValue={paged.filters.deliverySuccess ?? ''}
          onChange={(v) => paged.setFilters({ deliverySuccess: v })}
        />
      </div>
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.ready && (
        <Table
          caption={`Events, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(e) => e.id}
          empty="No events match."
          columns={[
            ...eventColumns<(typeof paged.rows)[number]>(),
            {
              header: 'Deliveries',
              cell: (e) =>
                `${e.deliveries.succeeded}/${e.deliveries.total} delivered${e.deliveries.failed ? `, ${e.deliveries.failed} failed` : ''}`,
            },
            {
              header: 'Detail',
              cell: (e) => (
                <Link to={`events/${encodeURIComponent(e.id)}`} aria-label={`View ${e.id}`}>
                  View
                </Link>
              ),
            },
          ]}
        />
      )}
      {paged.pager}
    </Page>
  );
}

/** `/dashboard/events/<id>` (DESIGN 10.7): one event, its type and time, what it says, and its deliveries to the caller's endpoints. */
export function EventPage({ id }: { id: string }) {
  const s = useSession();
  const e = useLoad(() => unwrap(s.client.GET('/v1/events/{id}', { params: { path: { id } } })), [s.client, id]);
  const x = e.data;
  return (
    <Page title={`Event ${id}`}>
      <p>
        <Link to="events">All events</Link>
      </p>
      {e.loading && <Loading />}
      <ErrorMessage error={e.error} />
      {x && (
        <>
          <dl className="facts">
            <dt>Type</dt>
            <dd>{x.type}</dd>
            <dt>Created</dt>
            <dd>{when(x.createdAt)}</dd>
          </dl>
          <h2>Deliveries</h2>
          <Table
            caption={`Deliveries of ${id}`}
            rows={x.deliveries}
            rowKey={(d) => d.id}
            empty="No endpoint of yours was subscribed to it."
            columns={[
              {
                header: 'Delivery',
                cell: (d) => (
                  <Link to={`deliveries/${encodeURIComponent(d.id)}`}>
                    <code>{d.id}</code>
                  </Link>
                ),
              },
              { header: 'Status', cell: (d) => <span className={`badge ${d.status}`}>{d.status}</span> },
              { header: 'Attempts', cell: (d) => d.attempts },
              { header: 'Last answer', cell: (d) => d.responseStatus ?? '—' },
              { header: 'Last attempt', cell: (d) => when(d.lastAttemptAt) },
            ]}
          />
          <h2>Payload</h2>
          <Json value={{ ...x, deliveries: undefined }} />
        </>
      )}
    </Page>
  );
}
