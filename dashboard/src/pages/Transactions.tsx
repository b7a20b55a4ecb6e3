import { useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { Link, useSearchParams } from '../router';
import { useSession } from '../session';
import { ErrorMessage, Field, Form, Loading, Page, Pager, pagesOf, Select, Table, useConfirm, useLoad, type Column } from '../ui';
import type { Schemas } from '../sdk-types';
import { BankSettlementReport, Export, MerchantSettlements } from './Settlements';
import { TransactionDisputes } from './Disputes';

type Transaction = Schemas['Transaction'];
const STATUSES = [
  'pending',
  'succeeded',
  'declined',
  'expired',
  'failed',
  'refunded',
  'partially_refunded',
] as const satisfies readonly Transaction['status'][];
const PAGE_SIZE = 50;

export const transactionColumns: Column<Transaction>[] = [
  {
    header: 'Reference',
    cell: (t) => (
      <Link to={`transactions/${encodeURIComponent(t.reference)}`}>
        <code>{t.reference}</code>
      </Link>
    ),
  },
  { header: 'Status', cell: (t) => <span className={`badge ${t.status}`}>{t.status.replace('_', ' ')}</span> },
  { header: 'Amount', cell: (t) => money(t.amount) },
  { header: 'Refunded', cell: (t) => money(t.refundedAmount) },
  { header: 'Description', cell: (t) => t.description },
  { header: 'Disputed', cell: (t) => (t.disputeStatus ? `${money(t.disputedAmount)} (${t.disputeStatus.replace('_', ' ')})` : '—') },
  { header: 'Merchant', cell: (t) => t.merchantName },
  { header: 'Created', cell: (t) => when(t.createdAt) },
];

/** A Lagos-agnostic day (YYYY-MM-DD, the viewer's) as the bound of a createdAt range. */
const dayBound = (day: string | null, end: boolean) =>
  day ? new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString() : undefined;

/** Transactions: filters and the page in the URL (`status`, `from`, `to`, `pages`), cursor paging, exports that take the filters. */
export function TransactionsPage() {
  const s = useSession();
  const [q, setQ] = useSearchParams();
  const status = (q.get('status') ?? '') as Transaction['status'] | '';
  const from = q.get('from');
  const to = q.get('to');
  const customerId = q.get('customerId');
  const { pages, startingAfter } = pagesOf(q);
  const filters = {
    ...(status ? { status } : {}),
    ...(customerId ? { customerId } : {}),
    ...(dayBound(from, false) ? { from: dayBound(from, false) } : {}),
    ...(dayBound(to, true) ? { to: dayBound(to, true) } : {}),
  };
  const list = useLoad(
    () =>
      unwrap(
        s.client.GET('/v1/transaction-history', {
          params: { query: { limit: PAGE_SIZE, ...filters, ...(startingAfter ? { startingAfter } : {}) } },
        }),
      ),
    [s.client, status, customerId, from, to, startingAfter],
  );
  const rows = list.data?.transactions ?? [];
  const keep = { status: status || undefined, customerId: customerId ?? undefined, from: from ?? undefined, to: to ?? undefined };
  return (
    <Page title="Transactions">
      <Form
        label="Filter transactions"
        submit="Apply filters"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '') || undefined;
          setQ({ status: v('status'), customerId: customerId ?? undefined, from: v('from'), to: v('to') });
        }}
      >
        <div className="row filters" key={q.toString()}>
          <Select label="Status" name="status" options={[['', 'Any status'], ...STATUSES]} defaultValue={status} />
          <Field label="From" name="from" type="date" defaultValue={from ?? undefined} />
          <Field label="To" name="to" type="date" defaultValue={to ?? undefined} />
        </div>
      </Form>
      {customerId && (
        <p className="notice">
          Transactions of customer <code>{customerId}</code>.{' '}
          <Link
            to={`transactions${status || from || to ? `?${new URLSearchParams({ ...(status ? { status } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) })}` : ''}`}
          >
            Show every customer
          </Link>
        </p>
      )}
      {s.acting!.kind === 'merchant' && s.can('POST', '/v1/exports') && !customerId && (
        <Export
          key={q.toString()}
          label={status || from || to ? 'Export these transactions (CSV)' : 'Export all transactions (CSV)'}
          body={{
            kind: 'transactions',
            ...(status ? { status } : {}),
            ...(filters.from ? { from: filters.from } : {}),
            ...(filters.to ? { to: filters.to } : {}),
          }}
        />
      )}
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && !list.loading && (
        <>
          <Table
            caption={`Transactions, page ${pages.length + 1}`}
            rows={rows}
            rowKey={(t) => t.reference}
            empty="No transactions match."
            columns={transactionColumns}
          />
          <Pager
            hasMore={list.data.hasMore}
            lastId={rows.at(-1)?.reference}
            pages={pages}
            onPages={(next) => setQ({ ...keep, pages: next.join(',') })}
          />
        </>
      )}
      {s.acting!.kind === 'merchant' && <MerchantSettlements />}
      {s.acting!.kind === 'bank' && <BankSettlementReport />}
    </Page>
  );
}

/** `/dashboard/transactions/<reference>`: one transaction, its amounts, customer, schedule, and a refund after `Confirm`. */
export function TransactionPage({ reference }: { reference: string }) {
  const s = useSession();
  const t = useLoad(() => unwrap(s.client.GET('/v1/transaction-details', { params: { query: { reference } } })), [s.client, reference]);
  const [refunded, setRefunded] = useState<string>();
  const confirm = useConfirm();
  const x = t.data;
  const refundable = x && (x.status === 'succeeded' || x.status === 'partially_refunded') && s.can('POST', '/v1/refunds/initiate');
  const remainder = x ? Math.round((x.amount - x.refundedAmount) * 100) / 100 : 0;
  return (
    <Page title={`Transaction ${reference}`}>
      <p>
        <Link to="transactions">All transactions</Link>
      </p>
      {t.loading && <Loading />}
      <ErrorMessage error={t.error} />
      {x && (
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <span className={`badge ${x.status}`}>{x.status.replace('_', ' ')}</span>
          </dd>
          <dt>Amount</dt>
          <dd>{money(x.amount)}</dd>
          <dt>Refunded</dt>
          <dd>{money(x.refundedAmount)}</dd>
          <dt>Description</dt>
          <dd>{x.description}</dd>
          <dt>Merchant</dt>
          <dd>
            {x.merchantName} <code>{x.entityId}</code>
          </dd>
          <dt>Customer</dt>
          <dd>
            <code>{x.customerId}</code>
          </dd>
          <dt>Type</dt>
          <dd>{x.type}</dd>
          <dt>Billing request</dt>
          <dd>
            <code>{x.billingRequestId}</code>
          </dd>
          <dt>Bank transaction</dt>
          <dd>{x.bankTransactionId ?? '—'}</dd>
          <dt>Schedule</dt>
          <dd>{x.scheduleId ? <code>{x.scheduleId}</code> : '—'}</dd>
          <dt>Settlement</dt>
          <dd>{x.settlementId ? <code>{x.settlementId}</code> : '—'}</dd>
          <dt>Created</dt>
          <dd>{when(x.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{when(x.updatedAt)}</dd>
        </dl>
      )}
      {refundable && (
        <section aria-labelledby="refund-h">
          <h2 id="refund-h">Refund</h2>
          {confirm.dialog}
          <Form
            label="Refund"
            submit="Refund"
            onSubmit={async (f) => {
              const amount = String(f.get('amount') ?? '').trim();
              const reason = String(f.get('reason') ?? '').trim();
              const what = amount ? money(amount) : `the whole remainder, ${money(remainder)}`;
              if (
                !(await confirm.ask({
                  title: 'Refund this transaction?',
                  message: (
                    <p>
                      Refund {what} of {reference} to the customer's bank.
                    </p>
                  ),
                }))
              )
                return;
              const r = await unwrap(
                s.client.POST('/v1/refunds/initiate', {
                  body: { reference, ...(amount ? { amount: Number(amount) } : {}), ...(reason ? { reason } : {}) },
                }),
              );
              setRefunded(`Refund ${r.refundId} of ${money(r.amount)} is ${r.status}.`);
              t.reload();
            }}
          >
            <Field label="Refund amount (NGN)" name="amount" hint={`Leave empty to refund the whole remainder (${money(remainder)}).`} />
            <Field label="Reason" name="reason" />
          </Form>
        </section>
      )}
      {refunded && (
        <p role="status" className="notice">
          {refunded}
        </p>
      )}
      {x && (s.acting!.kind === 'merchant' || s.acting!.kind === 'bank') && (
        <TransactionDisputes
          reference={reference}
          canDispute={x.status === 'succeeded' || x.status === 'partially_refunded'}
          onChanged={() => t.reload()}
        />
      )}
    </Page>
  );
}
