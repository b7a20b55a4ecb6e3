import { unwrap } from '../api';
import { money, settlementWhen, when } from '../format';
import { Link } from '../router';
import { useSession } from '../session';
import { ErrorMessage, Loading, Page, Table, useLoad } from '../ui';
import { transactionColumns } from './Transactions';

export function HomePage() {
  const s = useSession();
  if (s.acting!.kind === 'operator') return <OperatorHome />;
  return (
    <Page title="Home">
      {s.acting!.kind === 'merchant' && <Balance />}
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

function Failing() {
  const s = useSession();
  const d = useLoad(async () => {
    const [endpoints, failed] = await Promise.all([
      unwrap(s.client.GET('/v1/webhooks/endpoints')),
      unwrap(s.client.GET('/v1/webhooks/deliveries', { params: { query: { status: 'failed', limit: 100 } } })),
    ]);
    const failures = new Map<string, number>();
    for (const x of failed.deliveries) failures.set(x.endpointId, (failures.get(x.endpointId) ?? 0) + 1);
    return endpoints.endpoints
      .filter((e) => e.status === 'disabled' || failures.has(e.id))
      .map((e) => ({ ...e, failed: failures.get(e.id) ?? 0 }));
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
          empty="Every webhook endpoint is healthy."
          columns={[
            { header: 'URL', cell: (r) => r.url },
            { header: 'Status', cell: (r) => r.status },
            { header: 'Failed deliveries', cell: (r) => r.failed },
            { header: 'Disabled', cell: (r) => when(r.disabledAt) },
          ]}
        />
      )}
    </section>
  );
}

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
                { header: 'Account', cell: (r) => r.account },
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
