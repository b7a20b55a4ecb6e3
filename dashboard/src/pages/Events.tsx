import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ErrorMessage, Json, Loading, Page, Select, Table, useLoad, DetailToggle } from '../ui';
import { EVENT_TYPES } from '../../../functions/events/types';

type EventType = (typeof EVENT_TYPES)[number];

export function EventsPage() {
  const s = useSession();
  const [type, setType] = useState<EventType | ''>('');
  const [success, setSuccess] = useState<'' | 'true' | 'false'>('');
  const [open, setOpen] = useState<string>();
  const list = useLoad(
    () =>
      unwrap(
        s.client.GET('/v1/events', {
          params: { query: { limit: 50, ...(type ? { type } : {}), ...(success ? { deliverySuccess: success } : {}) } },
        }),
      ),
    [s.client, type, success],
  );
  return (
    <Page title="Events">
      <div className="row filters">
        <Select
          label="Event type"
          name="type"
          options={[['', 'All types'], ...EVENT_TYPES]}
          defaultValue=""
          onChange={(v) => setType(v as EventType | '')}
        />
        <Select
          label="Deliveries"
          name="deliverySuccess"
          options={[
            ['', 'Any'],
            ['true', 'All delivered'],
            ['false', 'Some failed'],
          ]}
          defaultValue=""
          onChange={(v) => setSuccess(v as '' | 'true' | 'false')}
        />
      </div>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Events"
          rows={list.data.events}
          rowKey={(e) => e.id}
          empty="No events match."
          columns={[
            { header: 'Type', cell: (e) => e.type },
            { header: 'Created', cell: (e) => when(e.createdAt) },
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
