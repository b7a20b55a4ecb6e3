import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { Link } from '../router';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, ShownOnce, Table, useLoad } from '../ui';

type Status = 'pending' | 'delivered' | 'failed';

export function WebhooksPage() {
  const s = useSession();
  const endpoints = useLoad(() => unwrap(s.client.GET('/v1/webhooks/endpoints')), [s.client]);
  const [secret, setSecret] = useState<{ label: string; value: string }>();
  const [notice, setNotice] = useState<string>();
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const canWrite = s.can('POST', '/v1/webhooks/endpoints');
  return (
    <Page title="Webhooks">
      {canWrite && (
        <Form
          label="New webhook endpoint"
          submit="Add endpoint"
          onSubmit={async (f) => {
            const r = await unwrap(s.client.POST('/v1/webhooks/endpoints', { body: { url: String(f.get('url') ?? '').trim() } }));
            setSecret({ label: `Signing secret of ${r.url}`, value: r.secret });
            endpoints.reload();
          }}
        >
          <Field label="URL" name="url" type="url" required placeholder="https://example.com/webhooks" />
        </Form>
      )}
      {secret && <ShownOnce label={secret.label} value={secret.value} />}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <h2>Endpoints</h2>
      {endpoints.loading && <Loading />}
      <ErrorMessage error={endpoints.error} />
      {endpoints.data && (
        <Table
          caption="Webhook endpoints"
          rows={endpoints.data.endpoints}
          rowKey={(e) => e.id}
          empty="No endpoints yet. Add one to receive events."
          columns={[
            { header: 'URL', cell: (e) => e.url },
            { header: 'Events', cell: (e) => e.events.join(', ') },
            {
              header: 'Status',
              cell: (e) => (e.status === 'disabled' ? `disabled ${when(e.disabledAt)}: ${e.disabledReason ?? ''}` : 'enabled'),
            },
            {
              header: 'Health',
              cell: (e) => (
                <span className={`badge ${e.health === 'failing' ? 'failed' : e.health === 'healthy' ? 'delivered' : ''}`}>{e.health}</span>
              ),
            },
            { header: 'Created', cell: (e) => when(e.createdAt) },
            {
              header: 'Actions',
              cell: (e) =>
                canWrite ? (
                  <span className="row">
                    <ActionButton
                      label="Send test event"
                      action={async () => {
                        const r = await unwrap(s.client.POST('/v1/webhooks/endpoints/{id}/test', { params: { path: { id: e.id } } }));
                        setNotice(`Test event ${r.eventId} sent to ${e.url}.`);
                        setDeliveriesVersion((v) => v + 1);
                      }}
                    />
                    <ActionButton
                      label="Rotate secret"
                      confirm={{
                        title: 'Rotate the signing secret?',
                        message: (
                          <p>
                            {e.url} gets a new signing secret; the old one keeps working for a while (24 hours unless set otherwise): update
                            your receiver with the new one.
                          </p>
                        ),
                      }}
                      action={async () => {
                        const r = await unwrap(
                          s.client.POST('/v1/webhooks/endpoints/{id}/rotate-secret', { params: { path: { id: e.id } } }),
                        );
                        setSecret({
                          label: `New signing secret of ${e.url} (the old one works until ${when(r.previousSecretExpiresAt)})`,
                          value: r.secret,
                        });
                      }}
                    />
                    <ActionButton
                      label="Delete"
                      danger
                      confirm={{
                        title: 'Delete this endpoint?',
                        message: <p>{e.url} will receive no more events. Its deliveries stay listed.</p>,
                      }}
                      action={() => unwrap(s.client.DELETE('/v1/webhooks/endpoints/{id}', { params: { path: { id: e.id } } }))}
                      onDone={endpoints.reload}
                    />
                  </span>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
      <Deliveries version={deliveriesVersion} endpoints={new Map((endpoints.data?.endpoints ?? []).map((e) => [e.id, e.url]))} />
    </Page>
  );
}

/** The caller's deliveries, newest first: the status filter and the page in the URL. */
function Deliveries({ version, endpoints }: { version: number; endpoints: Map<string, string> }) {
  const s = useSession();
  const paged = usePagedList({
    filters: ['status'] as const,
    deps: [s.client, version],
    load: async (f, paging) => {
      const query = { ...paging, ...(f.status ? { status: f.status as Status } : {}) };
      const r = await unwrap(s.client.GET('/v1/webhooks/deliveries', { params: { query } }));
      return { items: r.deliveries, hasMore: r.hasMore };
    },
    cursorOf: (d) => d.id,
  });
  const status = paged.filters.status;
  const canReplay = s.can('POST', '/v1/webhooks/deliveries/{id}/replay');
  const replay = (id: string) => unwrap(s.client.POST('/v1/webhooks/deliveries/{id}/replay', { params: { path: { id } } }));
  const failed = paged.rows.filter((d) => d.status === 'failed');
  return (
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Deliveries</h2>
      <div className="row filters" key={paged.formKey}>
        <Select
          label="Status"
          name="status"
          options={[['', 'All'], 'pending', 'delivered', 'failed']}
          defaultValue={status ?? ''}
          onChange={(v) => paged.setFilters({ status: v })}
        />
        <button type="button" className="secondary" onClick={paged.list.reload}>
          Refresh
        </button>
        {canReplay && failed.length > 0 && (
          <ActionButton
            label="Replay all failed"
            confirm={{
              title: 'Replay every failed delivery on this page?',
              message: (
                <p>
                  {failed.length} failed {failed.length === 1 ? 'delivery is' : 'deliveries are'} sent again to their endpoints, which
                  receive those events a second time.
                </p>
              ),
            }}
            action={async () => {
              for (const d of failed) await replay(d.id);
            }}
            onDone={paged.list.reload}
          />
        )}
      </div>
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.ready && (
        <Table
          caption={`Webhook deliveries, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(d) => d.id}
          empty={status ? `No ${status} deliveries.` : 'No deliveries yet.'}
          columns={[
            {
              header: 'Delivery',
              cell: (d) => (
                <Link to={`deliveries/${encodeURIComponent(d.id)}`}>
                  <code>{d.id}</code>
                </Link>
              ),
            },
            { header: 'Event', cell: (d) => d.eventType },
            { header: 'Endpoint', cell: (d) => endpoints.get(d.endpointId) ?? d.endpointId },
            { header: 'Status', cell: (d) => <span className={`badge ${d.status}`}>{d.status}</span> },
            { header: 'Attempts', cell: (d) => d.attempts },
            { header: 'Last response', cell: (d) => d.lastStatusCode ?? d.lastError ?? '—' },
            { header: 'Last attempt', cell: (d) => when(d.lastAttemptAt) },
            { header: 'Next attempt', cell: (d) => when(d.nextAttemptAt) },
            {
              header: 'Replay',
              cell: (d) => (canReplay ? <ActionButton label="Replay" action={() => replay(d.id)} onDone={paged.list.reload} /> : '—'),
            },
          ]}
        />
      )}
      {paged.pager}
    </section>
  );
}
