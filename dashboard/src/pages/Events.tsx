import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { ErrorMessage, Json, Loading, Page, Select, Table, useLoad, DetailToggle, type Column } from '../ui';
import { EVENT_TYPES } from '../../../functions/events/types';

type EventType = (typeof EVENT_TYPES)[number];

/** The events sent to the caller, newest first: filters (`type`, `deliverySuccess`) and the page in the URL. */
/** An event's id, type and time: the first columns of every table of events. */
export const eventColumns = <E extends { id: string; type: string; createdAt: string }>(): Column<E>[] => [
  { header: 'Event', cell: (e) => <code>{e.id}</code> },
  { header: 'Type', cell: (e) => e.type },
  { header: 'Created', cell: (e) => when(e.createdAt) },
];

export function EventsPage() {
  const s = useSession();
  const [open, setOpen] = useState<string>();
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
              cell: (e) => <DetailToggle id={e.id} open={open} onToggle={setOpen} />,
            },
          ]}
        />
      )}
      {paged.pager}
      {open && <EventDetail id={open} />}
    </Page>
  );
}

function EventDetail({ id }: { id: string }) {
  const s = useSession();
  const e = useLoad(() => unwrap(s.client.GET('/v1/events/{id}', { params: { path: { id } } })), [s.client, id]);
  return (
    <section aria-labelledby="event-h" className="detail">
      <h2 id="event-h">Event {id}</h2>
      {e.loading && <Loading />}
      <ErrorMessage error={e.error} />
      {e.data && <Json value={e.data} />}
    </section>
  );
}
