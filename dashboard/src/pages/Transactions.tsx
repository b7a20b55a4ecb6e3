import { useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { Link } from '../router';
import { usePagedList } from '../paged';
import { useSession } from '../session';
import { CustomerNamed, ErrorMessage, Field, Form, Loading, Page, Select, Table, useConfirm, useLoad, type Column } from '../ui';
import type { DataOf, Schemas } from '../sdk-types';
import { refundAmountProblem } from '../validate';
import { BankSettlementReport, Export, MerchantSettlements } from './Settlements';
import { TransactionDisputes } from './Disputes';
import { eventColumns } from './Events';

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

/** A transaction as its list shows it: the customer's name and e-mail beside the id (DESIGN 10.7). */
type Listed = Transaction & { customer?: { name: string; email: string } | null };

export const transactionColumns: Column<Listed>[] = [
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
  { header: 'Customer', cell: (t) => <CustomerNamed id={t.customerId} customer={t.customer} /> },
  { header: 'Merchant', cell: (t) => t.merchantName },
  { header: 'Created', cell: (t) => when(t.createdAt) },
];

/** A Lagos-agnostic day (YYYY-MM-DD, the viewer's) as the bound of a createdAt range. */
const dayBound = (day: string, end: boolean) => new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString();

/** Transactions: filters and the page in the URL (`status`, `customerId`, `from`, `to`, `pages`), cursor paging, exports that take the filters. */
export function TransactionsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['status', 'customerId', 'from', 'to'] as const,
    deps: [s.client],
    cursorOf: (t: Transaction) => t.reference,
    load: async (f, paging) => {
      const r = await unwrap(s.client.GET('/v1/transaction-history', { params: { query: { ...paging, ...query(f) } } }));
      return { items: r.transactions, hasMore: r.hasMore };
    },
  });
  const { status, customerId, from, to } = paged.filters;
  const range = query(paged.filters);
  return (
    <Page title="Transactions">
      <Form
        label="Filter transactions"
        submit="Apply filters"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '') || undefined;
          paged.setFilters({ status: v('status'), from: v('from'), to: v('to') });
        }}
      >
        <div className="row filters" key={paged.formKey}>
          <Select label="Status" name="status" options={[['', 'Any status'], ...STATUSES]} defaultValue={status ?? ''} />
          <Field label="From" name="from" type="date" defaultValue={from} />
          <Field label="To" name="to" type="date" defaultValue={to} />
        </div>
      </Form>
      {customerId && (
        <p className="notice">
          Transactions of customer <code>{customerId}</code>.{' '}
          <button type="button" className="link" onClick={() => paged.setFilters({ customerId: undefined })}>
            Show every customer
          </button>
        </p>
      )}
      {s.acting!.kind === 'merchant' && s.can('POST', '/v1/exports') && !customerId && (
        <Export
          key={paged.formKey}
          label={status || from || to ? 'Export these transactions (CSV)' : 'Export all transactions (CSV)'}
          body={{
            kind: 'transactions',
            ...(range.status ? { status: range.status } : {}),
            ...(range.from ? { from: range.from } : {}),
            ...(range.to ? { to: range.to } : {}),
          }}
        />
      )}
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.ready && (
        <Table
          caption={`Transactions, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(t) => t.reference}
          empty="No transactions match."
          columns={transactionColumns}
        />
      )}
      {paged.pager}
      {s.acting!.kind === 'merchant' && <MerchantSettlements />}
      {s.acting!.kind === 'bank' && <BankSettlementReport />}
    </Page>
  );
}

/** The history's query for the filters in the URL (days are the viewer's, as bounds of createdAt). */
function query(f: { status?: string; customerId?: string; from?: string; to?: string }) {
  return {
    ...(f.status ? { status: f.status as Transaction['status'] } : {}),
    ...(f.customerId ? { customerId: f.customerId } : {}),
    ...(f.from ? { from: dayBound(f.from, false) } : {}),
    ...(f.to ? { to: dayBound(f.to, true) } : {}),
  };
}

/** `/dashboard/transactions/<reference>`: one transaction, its amounts, customer, schedule, and a refund after `Confirm`. */
export function TransactionPage({ reference }: { reference: string }) {
  const s = useSession();
  const t = useLoad(() => unwrap(s.client.GET('/v1/transaction-details', { params: { query: { reference } } })), [s.client, reference]);
  const [refunded, setRefunded] = useState<string>();
  const confirm = useConfirm();
  const x = t.data;
  const [amountProblem, setAmountProblem] = useState<string>();
  // What a refund may still take: not what is refunded or on its way back (refunds not failed),
  // nor what its disputes hold (open or lost).
  const asked = x ? x.refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + Math.round(r.amount * 100), 0) / 100 : 0;
  const remainder = x ? Math.round((x.amount - Math.max(x.refundedAmount, asked) - x.disputedAmount) * 100) / 100 : 0;
  const refundable =
    x && (x.status === 'succeeded' || x.status === 'partially_refunded') && remainder > 0 && s.can('POST', '/v1/refunds/initiate');
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
            <CustomerNamed id={x.customerId} customer={x.customer} />
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
          <dd>
            {x.scheduleId ? (
              s.can('GET', '/v1/recurring/{scheduleId}') ? (
                <Link to={`schedules/${encodeURIComponent(x.scheduleId)}`}>
                  <code>{x.scheduleId}</code>
                </Link>
              ) : (
                <code>{x.scheduleId}</code>
              )
            ) : (
              '—'
            )}
          </dd>
          <dt>Settlement</dt>
          <dd>{x.settlementId ? <code>{x.settlementId}</code> : '—'}</dd>
          <dt>Created</dt>
          <dd>{when(x.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{when(x.updatedAt)}</dd>
        </dl>
      )}
      {/* Hidden while the transaction reloads: a refund form must never offer a stale remainder. */}
      {refundable && !t.loading && (
        <section aria-labelledby="refund-h">
          <h2 id="refund-h">Refund</h2>
          {confirm.dialog}
          <Form
            label="Refund"
            submit="Refund"
            onSubmit={async (f) => {
              const amount = String(f.get('amount') ?? '')
                .trim()
                .replace(/,/g, '');
              const reason = String(f.get('reason') ?? '').trim();
              const problem = refundAmountProblem(amount, remainder, money(remainder));
              setAmountProblem(problem);
              if (problem) {
                document.querySelector<HTMLInputElement>('input[name="amount"]')?.focus();
                return false;
              }
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
                return false;
              const r = await unwrap(
                s.client.POST('/v1/refunds/initiate', {
                  body: { reference, ...(amount ? { amount: Number(amount) } : {}), ...(reason ? { reason } : {}) },
                }),
              );
              setRefunded(`Refund ${r.refundId} of ${money(r.amount)} is ${r.status}.`);
              t.reload();
            }}
          >
            <Field
              label="Refund amount (NGN)"
              name="amount"
              inputMode="decimal"
              hint={`Leave empty to refund the whole remainder (${money(remainder)}).`}
              error={amountProblem}
            />
            <Field label="Reason" name="reason" />
          </Form>
        </section>
      )}
      {refunded && (
        <p role="status" className="notice">
          {refunded}
        </p>
      )}
      {x && (
        <section aria-labelledby="txn-refunds-h">
          <h2 id="txn-refunds-h">Refunds</h2>
          <Table
            caption={`Refunds of ${reference}`}
            rows={x.refunds}
            rowKey={(r) => r.refundId}
            empty="No refunds of this transaction."
            columns={[
              { header: 'Refund', cell: (r) => <code>{r.refundId}</code> },
              { header: 'Amount', cell: (r) => money(r.amount) },
              {
                header: 'Status',
                cell: (r) => (
                  <span className={`badge ${r.status === 'completed' ? 'succeeded' : r.status}`}>
                    {r.status}
                    {r.failureReason ? `: ${r.failureReason}` : ''}
                  </span>
                ),
              },
              { header: 'Reason', cell: (r) => r.reason ?? '—' },
              { header: 'Asked', cell: (r) => when(r.createdAt) },
              { header: 'Completed', cell: (r) => (r.completedAt ? when(r.completedAt) : `expected by ${when(r.expectedBy)}`) },
            ]}
          />
        </section>
      )}
      {x && <TransactionEvents reference={reference} events={x.events} />}
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

type ShownEvent = DataOf<'/v1/transaction-details'>['events'][number];

/** The caller's events of a transaction (its refunds' and disputes' too), oldest first, each with its deliveries. */
function TransactionEvents({ reference, events }: { reference: string; events: ShownEvent[] }) {
  const s = useSession();
  const canOpen = s.can('GET', '/v1/webhooks/deliveries/{id}');
  return (
    <section aria-labelledby="txn-events-h">
      <h2 id="txn-events-h">Events</h2>
      <Table
        caption={`Events of ${reference}`}
        rows={events}
        rowKey={(e) => e.id}
        empty="No events of this transaction in the last 30 days."
        columns={[
          ...eventColumns<ShownEvent>(),
          {
            header: 'Deliveries',
            cell: (e) =>
              e.deliveries.length === 0 ? (
                'No endpoint subscribed'
              ) : (
                <ul className="deliveries">
                  {e.deliveries.map((d) => (
                    <li key={d.id}>
                      {canOpen ? (
                        <Link to={`deliveries/${encodeURIComponent(d.id)}`}>
                          <code>{d.id}</code>
                        </Link>
                      ) : (
                        <code>{d.id}</code>
                      )}{' '}
                      <span className={`badge ${d.status}`}>{d.status}</span>
                      {d.responseStatus !== null ? ` ${d.responseStatus}` : ''}
                      {`, ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`}
                    </li>
                  ))}
                </ul>
              ),
          },
        ]}
      />
    </section>
  );
}
