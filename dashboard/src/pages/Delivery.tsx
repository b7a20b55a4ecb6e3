import { unwrap } from '../api';
import { when } from '../format';
import { Link } from '../router';
import { useSession } from '../session';
import { ErrorMessage, Loading, Page, Table, useLoad } from '../ui';

const headerRows = (h: Record<string, string>) => Object.entries(h).map(([name, value]) => ({ name, value }));

function Headers({ caption, headers }: { caption: string; headers: Record<string, string> }) {
  return (
    <Table
      caption={caption}
      rows={headerRows(headers)}
      rowKey={(r) => r.name}
      empty="No headers kept."
      columns={[
        { header: 'Header', cell: (r) => <code>{r.name}</code> },
        { header: 'Value', cell: (r) => <code>{r.value}</code> },
      ]}
    />
  );
}

function Body({ label, text }: { label: string; text: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must take keyboard focus (axe scrollable-region-focusable)
    // biome-ignore lint/a11y/useSemanticElements: a <section> would add a landmark per body
    <div role="region" aria-label={label} tabIndex={0} className="body">
      <pre>{text || '(empty)'}</pre>
    </div>
  );
}

/** `/dashboard/deliveries/<id>`: a delivery and each attempt's request (signatures redacted) and answer (DESIGN 9.3, 9.7). */
export function DeliveryPage({ id }: { id: string }) {
  const s = useSession();
  const d = useLoad(() => unwrap(s.client.GET('/v1/webhooks/deliveries/{id}', { params: { path: { id } } })), [s.client, id]);
  const x = d.data;
  return (
    <Page title={`Delivery ${id}`}>
      <p>
        <Link to="webhooks">Webhooks</Link>
      </p>
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {x && (
        <>
          <dl className="facts">
            <dt>Event</dt>
            <dd>
              {x.type} <code>{x.eventId}</code>
            </dd>
            <dt>Endpoint</dt>
            <dd>
              {x.url ?? '(deleted)'} <code>{x.endpointId}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <span className={`badge ${x.status}`}>{x.status}</span>
            </dd>
            <dt>Created</dt>
            <dd>{when(x.createdAt)}</dd>
          </dl>
          <h2>Attempts</h2>
          {x.attempts.length === 0 && <p className="empty">No attempt yet.</p>}
          {x.attempts.map((a) => (
            <section key={a.attempt} className="attempt" aria-labelledby={`attempt-${a.attempt}`}>
              <h3 id={`attempt-${a.attempt}`}>
                Attempt {a.attempt}: {a.response ? `answered ${a.response.status}` : `no answer (${a.error ?? 'unknown'})`}
              </h3>
              <p>
                {when(a.at)}, {a.durationMs} ms{a.error && a.response ? ` (${a.error})` : ''}
              </p>
              {a.request && (
                <>
                  <Headers caption={`Request headers of attempt ${a.attempt}`} headers={a.request.headers} />
                  <Body label={`Request body of attempt ${a.attempt}`} text={a.request.body} />
                </>
              )}
              {a.response && (
                <>
                  <Headers caption={`Response headers of attempt ${a.attempt}`} headers={a.response.headers} />
                  <Body label={`Response body of attempt ${a.attempt}`} text={a.response.body} />
                </>
              )}
            </section>
          ))}
        </>
      )}
    </Page>
  );
}
