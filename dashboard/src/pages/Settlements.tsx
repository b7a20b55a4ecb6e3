import { useState } from 'react';
import { unwrap } from '../api';
import { lagosDate, money, settlementWhen } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import type { BodyOf } from '../sdk-types';
import { ActionButton, ErrorMessage, Field, Form, Loading, Table, useLoad, DetailToggle } from '../ui';

/**
 * Reconciliation (DESIGN 8.8) under Transactions: a merchant's settlements with their lines and
 * CSV exports (a pre-signed download once ready); a bank's settlement report per business day.
 */
export function MerchantSettlements() {
  const s = useSession();
  // Beside the transactions on one page: its own URL parameters (`settlements-pages`, `settlements-limit`).
  const paged = usePagedList({
    ns: 'settlements',
    filters: [] as const,
    deps: [s.client],
    load: async (_f, paging) => {
      const r = await unwrap(s.client.GET('/v1/settlements', { params: { query: paging } }));
      return { items: r.settlements, hasMore: r.hasMore };
    },
    cursorOf: (x) => x.settlementId,
  });
  const list = paged.list;
  const [open, setOpen] = useState<string>();
  return (
    <section aria-labelledby="settlements-h">
      <h2 id="settlements-h">Settlements</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {paged.ready && (
        <Table
          caption={`Settlements, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(x) => x.settlementId}
          empty="No settlements yet: funds settle on the next Lagos business day."
          columns={[
            { header: 'Business date', cell: (x) => lagosDate(x.businessDate) },
            { header: 'Amount', cell: (x) => money(x.amount) },
            { header: 'Payments', cell: (x) => x.transactionCount },
            { header: 'Refunds', cell: (x) => x.refundCount },
            { header: 'Settled', cell: (x) => settlementWhen(x.settledAt) },
            {
              header: 'Lines',
              cell: (x) => <DetailToggle id={x.settlementId} open={open} onToggle={setOpen} show="View lines" hide="Hide lines" />,
            },
          ]}
        />
      )}
      {paged.pager}
      {open && <SettlementLines id={open} />}
    </section>
  );
}

function SettlementLines({ id }: { id: string }) {
  const s = useSession();
  const d = useLoad(() => unwrap(s.client.GET('/v1/settlements/{id}', { params: { path: { id } } })), [s.client, id]);
  return (
    <div className="detail">
      <h3>Settlement {id}</h3>
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {d.data && (
        <>
          <p>
            {money(d.data.amount)} for {lagosDate(d.data.businessDate)}
            {d.data.linesComplete ? '' : ' (first 10,000 lines: export them all)'}
          </p>
          <Table
            caption={`Lines of settlement ${id}`}
            rows={d.data.lines}
            rowKey={(l) => `${l.type}:${l.reference}`}
            empty="No lines."
            columns={[
              { header: 'Reference', cell: (l) => <code>{l.reference}</code> },
              { header: 'Type', cell: (l) => l.type },
              { header: 'Amount', cell: (l) => money(l.amount) },
            ]}
          />
          {s.can('POST', '/v1/exports') && <Export label="Export these lines (CSV)" body={{ kind: 'settlement', settlementId: id }} />}
        </>
      )}
    </div>
  );
}

type ExportBody = BodyOf<'/v1/exports', 'post'>;

/** Starts an export (with the filters on screen), then follows it until its pre-signed CSV link is ready. */
export function Export({ label, body }: { label: string; body: ExportBody }) {
  const s = useSession();
  const [state, setState] = useState<{ status: string; url?: string | null; rows?: number | null }>();
  return (
    <div className="row">
      <ActionButton
        label={label}
        action={async () => {
          const created = await unwrap(s.client.POST('/v1/exports', { body }));
          setState({ status: created.status });
          for (let i = 0; i < 60; i++) {
            await new Promise((r) => setTimeout(r, 1000));
            const e = await unwrap(s.client.GET('/v1/exports/{id}', { params: { path: { id: created.exportId } } }));
            setState({ status: e.status, url: e.url, rows: e.rowCount });
            if (e.status !== 'pending') return;
          }
        }}
      />
      {state && (
        <span role="status">
          {state.status === 'ready' && state.url ? (
            <a href={state.url} download>
              Download CSV ({state.rows} rows)
            </a>
          ) : state.status === 'failed' ? (
            'The export failed.'
          ) : (
            'Preparing the export…'
          )}
        </span>
      )}
    </div>
  );
}

export function BankSettlementReport() {
  const s = useSession();
  const [day, setDay] = useState<string>();
  const r = useLoad(
    async () => (day ? unwrap(s.client.GET('/v1/bank/settlement-reports', { params: { query: { businessDate: day } } })) : undefined),
    [s.client, day],
  );
  return (
    <section aria-labelledby="report-h">
      <h2 id="report-h">Settlement report</h2>
      <Form label="Settlement report" submit="Show report" onSubmit={async (f) => setDay(String(f.get('businessDate') ?? ''))}>
        <Field label="Business date" name="businessDate" type="date" required />
      </Form>
      {r.loading && day && <Loading />}
      <ErrorMessage error={r.error} />
      {r.data && (
        <>
          <p>
            {lagosDate(r.data.businessDate)}: debits {money(r.data.debits)}, credits {money(r.data.credits)}, net {money(r.data.net)} over{' '}
            {r.data.transactionCount} payments.
          </p>
          <Table
            caption="By merchant"
            rows={r.data.byMerchant}
            rowKey={(m) => m.entityId}
            empty="No payments that day."
            columns={[
              { header: 'Merchant', cell: (m) => m.merchantName },
              { header: 'Amount', cell: (m) => money(m.amount) },
              { header: 'Payments', cell: (m) => m.count },
            ]}
          />
        </>
      )}
    </section>
  );
}
