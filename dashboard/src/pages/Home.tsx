import { unwrap } from '../api';
import { money, settlementWhen, when } from '../format';
import { Link } from '../router';
import { useSession } from '../session';
import { useState } from 'react';
import { ErrorMessage, Loading, Named, Page, Table, useLoad } from '../ui';
import { transactionColumns } from './Transactions';

export function HomePage() {
  const s = useSession();
  if (s.acting!.kind === 'operator') return <OperatorHome />;
  return (
    <Page title="Home">
      <GetStarted />
      {s.acting!.kind === 'merchant' && <Balance />}
      <Volume />
      <Recent />
      <Failing />
    </Page>
  );
}

function Balance() {
  const s = useSession();
  const b = useLoad(() => unwrap(s.client.GET('/v1/balance/details')), [s.client]);
  return (
    <section aria-labelledby="balance-h">
      <h2 id="balance-h">Balance</h2>
      {b.loading && <Loading />}
      <ErrorMessage error={b.error} />
      {b.data && (
        <dl className="facts">
          <dt>Total</dt>
          <dd>{money(b.data.totalBalance)}</dd>
          <dt>Unsettled</dt>
          <dd>{money(b.data.unsettledBalance)}</dd>
          <dt>Settled</dt>
          <dd>{money(b.data.settledBalance)}</dd>
          <dt>Next settlement</dt>
          <dd>
            {b.data.nextSettlement ? `${money(b.data.nextSettlement.amount)} on ${settlementWhen(b.data.nextSettlement.date)}` : 'None due'}
          </dd>
        </dl>
      )}
    </section>
  );
}

function Recent() {
  const s = useSession();
  const t = useLoad(() => unwrap(s.client.GET('/v1/transaction-history', { params: { query: { limit: 5 } } })), [s.client]);
  return (
    <section aria-labelledby="recent-h">
      <h2 id="recent-h">Recent transactions</h2>
      {t.loading && <Loading />}
      <ErrorMessage error={t.error} />
      {t.data && (
        <Table
          caption="Recent transactions"
          columns={transactionColumns}
          rows={t.data.transactions}
          rowKey={(r) => r.reference}
          empty="No transactions yet."
        />
      )}
      <p>
        <Link to="transactions">All transactions</Link>
      </p>
    </section>
  );
}

/** Endpoints whose last 5 attempts failed (DESIGN 9.3 `health`) or that a 410 disabled, each with its latest delivery. */
function Failing() {
  const s = useSession();
  const d = useLoad(async () => {
    const [endpoints, recent] = await Promise.all([
      unwrap(s.client.GET('/v1/webhooks/endpoints')),
      unwrap(s.client.GET('/v1/webhooks/deliveries', { params: { query: { limit: 100 } } })),
    ]);
    return endpoints.endpoints
      .filter((e) => e.health === 'failing' || e.status === 'disabled')
      .map((e) => ({ ...e, latest: recent.deliveries.find((x) => x.endpointId === e.id) }));
  }, [s.client]);
  return (
    <section aria-labelledby="failing-h">
      <h2 id="failing-h">Failing endpoints</h2>
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {d.data && (
        <Table
          caption="Failing webhook endpoints"
          rows={d.data}
          rowKey={(r) => r.id}
          empty="No endpoint is failing: none has failed its last 5 attempts."
          columns={[
            { header: 'URL', cell: (r) => r.url },
            { header: 'Health', cell: (r) => <span className="badge failed">{r.health}</span> },
            { header: 'Status', cell: (r) => (r.status === 'disabled' ? `disabled ${when(r.disabledAt)}` : r.status) },
            {
              header: 'Latest delivery',
              cell: (r) =>
                r.latest ? (
                  <Link to={`deliveries/${encodeURIComponent(r.latest.id)}`}>
                    {r.latest.eventType}: {r.latest.lastStatusCode ?? r.latest.lastError ?? r.latest.status}
                  </Link>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
    </section>
  );
}

/** Home's `Get started` checklist (DESIGN 9.7), shown until every step is done. */
function GetStarted() {
  const s = useSession();
  const canKeys = s.can('GET', '/v1/keys');
  const d = useLoad(async () => {
    const [keys, endpoints, tests, txns] = await Promise.all([
      canKeys ? unwrap(s.client.GET('/v1/keys')) : Promise.resolve(undefined),
      unwrap(s.client.GET('/v1/webhooks/endpoints', { params: { query: { limit: 1 } } })),
      unwrap(s.client.GET('/v1/events', { params: { query: { type: 'webhook.test', limit: 1 } } })),
      unwrap(s.client.GET('/v1/transaction-history', { params: { query: { limit: 1 } } })),
    ]);
    return [
      { label: 'Create an API key', done: keys ? keys.keys.length > 0 : true, to: 'keys' },
      { label: 'Add a webhook endpoint', done: endpoints.endpoints.length > 0, to: 'webhooks' },
      { label: 'Send a test event', done: tests.events.length > 0, to: 'webhooks' },
      { label: 'Make a first sandbox bill', done: txns.transactions.length > 0, to: 'transactions' },
      { label: 'Apply for live', done: s.config.stage === 'live', to: undefined, optional: true },
    ];
  }, [s.client]);
  // Done once the first four are (DESIGN 10.7): applying for live is offered, not required.
  if (d.data?.every((x) => x.done || x.optional)) return null;
  return (
    <section aria-labelledby="start-h">
      <h2 id="start-h">Get started</h2>
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {d.data && (
        <ul className="checklist">
          {d.data.map((x) => (
            <li key={x.label} className={x.done ? 'done' : undefined}>
              <span aria-hidden="true">{x.done ? '✓ ' : '○ '}</span>
              {x.to && !x.done ? <Link to={x.to}>{x.label}</Link> : x.label}
              <span className="visually-hidden">{x.done ? ' (done)' : ' (to do)'}</span>
              {x.label === 'Apply for live' && !x.done && ': your sandbox work stays here; live keys come with a live account.'}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The last 30 Lagos days of succeeded debits (GET /v1/reports/volume) as bars, with the same figures as a table. */
function Volume() {
  const s = useSession();
  const v = useLoad(() => unwrap(s.client.GET('/v1/reports/volume')), [s.client]);
  const days = v.data?.days ?? [];
  const max = Math.max(1, ...days.map((x) => x.amount));
  const total = days.reduce((sum, x) => sum + x.amount, 0);
  const count = days.reduce((sum, x) => sum + x.count, 0);
  const [shown, setShown] = useState<number>();
  // The plot's box inside the SVG: room on the left for the amount axis, below for the days.
  const W = 600;
  const H = 160;
  const L = 64;
  const B = 34;
  const bar = days.length ? (W - L) / days.length : W - L;
  const y = (amount: number) => H - Math.round((amount / max) * (H - 10));
  const hover = shown !== undefined ? days[shown] : undefined;
  return (
    <section aria-labelledby="volume-h">
      <h2 id="volume-h">Volume, last 30 days</h2>
      {v.loading && <Loading />}
      <ErrorMessage error={v.error} />
      {v.data && (
        <>
          <p>
            {count} succeeded {count === 1 ? 'debit' : 'debits'}, {money(total)}.
          </p>
          <p className="chart-value" data-testid="chart-value" aria-live="polite">
            {hover
              ? `${hover.date}: ${hover.count} ${hover.count === 1 ? 'debit' : 'debits'}, ${money(hover.amount)}`
              : 'Point at or tab to a day for its figures.'}
          </p>
          {/* biome-ignore lint/a11y/useSemanticElements: an SVG has no <fieldset>; the chart is a named group of focusable bars */}
          <svg
            className="chart"
            viewBox={`0 0 ${W} ${H + B}`}
            role="group"
            aria-label={`Daily volume: ${count} debits, ${money(total)} over 30 days; the table below has each day`}
          >
            <g>
              <line className="axis" x1={L} y1={H} x2={W} y2={H} />
              <line className="axis" x1={L} y1={0} x2={L} y2={H} />
              <text x={L - 4} y={10} textAnchor="end">
                {money(max)}
              </text>
              <text x={L - 4} y={H} textAnchor="end">
                {money(0)}
              </text>
              <text x={12} y={H / 2} textAnchor="middle" transform={`rotate(-90 12 ${H / 2})`}>
                Amount (₦)
              </text>
            </g>
            {days.map((x, i) => {
              const h = H - y(x.amount);
              return (
                // biome-ignore lint/a11y/noInteractiveElementToNoninteractiveRole: a bar is an image of one day's figures that takes focus to show them
                <rect
                  key={x.date}
                  role="img"
                  aria-label={`${x.date}: ${x.count} debits, ${money(x.amount)}`}
                  className="bar"
                  x={L + i * bar + 1}
                  y={H - Math.max(h, 1)}
                  width={Math.max(1, bar - 2)}
                  height={Math.max(h, 1)}
                  tabIndex={0}
                  onMouseEnter={() => setShown(i)}
                  onFocus={() => setShown(i)}
                  onMouseLeave={() => setShown(undefined)}
                  onBlur={() => setShown(undefined)}
                />
              );
            })}
            {days.length > 0 && (
              <>
                <text x={L} y={H + 14}>
                  {days[0]!.date}
                </text>
                <text x={W} y={H + 14} textAnchor="end">
                  {days.at(-1)!.date}
                </text>
              </>
            )}
            <text x={L + (W - L) / 2} y={H + 30} textAnchor="middle">
              Day (Lagos)
            </text>
          </svg>
          <details>
            <summary>Show the volume as a table</summary>
            <Table
              caption="Volume per day"
              rows={[...days].reverse()}
              rowKey={(x) => x.date}
              empty="No days."
              columns={[
                { header: 'Day (Lagos)', cell: (x) => x.date },
                { header: 'Debits', cell: (x) => x.count },
                { header: 'Amount', cell: (x) => money(x.amount) },
                { header: 'Refunded', cell: (x) => money(x.refunded) },
                { header: 'Disputed', cell: (x) => money(x.disputed) },
              ]}
            />
          </details>
        </>
      )}
    </section>
  );
}

/** The trial balance's account types in words. */
const ACCOUNT_LABELS = {
  bank: "Customers' bank (owes the captured funds)",
  merchant_unsettled: 'Merchant balance, not settled yet',
  merchant_settled: 'Merchant balance, settled',
  disputes: "Held by the merchant's open disputes",
} as const;

function OperatorHome() {
  const s = useSession();
  const tb = useLoad(() => unwrap(s.client.GET('/v1/operator/ledger/trial-balance')), [s.client]);
  return (
    <Page title="Home">
      <section aria-labelledby="tb-h">
        <h2 id="tb-h">Trial balance</h2>
        {tb.loading && <Loading />}
        <ErrorMessage error={tb.error} />
        {tb.data && (
          <>
            <p>
              {tb.data.balanced ? 'The ledger balances.' : 'The ledger does NOT balance.'} Debits {money(tb.data.totalDebit)}, credits{' '}
              {money(tb.data.totalCredit)}.
            </p>
            <Table
              caption="Ledger accounts"
              rows={tb.data.accounts}
              rowKey={(r) => r.account}
              empty="No ledger entries yet."
              columns={[
                {
                  header: 'Account',
                  cell: (r) => (r.participantId ? <Named name={r.participantName} id={r.participantId} /> : <code>{r.account}</code>),
                },
                { header: 'Type', cell: (r) => (r.type ? ACCOUNT_LABELS[r.type] : 'Unknown account') },
                { header: 'Debit', cell: (r) => money(r.debit) },
                { header: 'Credit', cell: (r) => money(r.credit) },
              ]}
            />
          </>
        )}
      </section>
    </Page>
  );
}
