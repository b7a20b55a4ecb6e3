import { useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { ErrorMessage, Field, Form, Json, Loading, Page, Select, Table, useLoad, type Column, DetailToggle } from '../ui';
import type { Schemas } from '../sdk-types';
import { BankSettlementReport, MerchantSettlements } from './Settlements';
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

export const transactionColumns: Column<Transaction>[] = [
  { header: 'Reference', cell: (t) => <code>{t.reference}</code> },
  { header: 'Status', cell: (t) => <span className={`badge ${t.status}`}>{t.status.replace('_', ' ')}</span> },
  { header: 'Amount', cell: (t) => money(t.amount) },
  { header: 'Refunded', cell: (t) => money(t.refundedAmount) },
  { header: 'Disputed', cell: (t) => (t.disputeStatus ? `${money(t.disputedAmount)} (${t.disputeStatus.replace('_', ' ')})` : '—') },
  { header: 'Merchant', cell: (t) => t.merchantName },
  { header: 'Created', cell: (t) => when(t.createdAt) },
];

export function TransactionsPage() {
  const s = useSession();
  const [filter, setFilter] = useState<{ status?: Transaction['status']; from?: string; to?: string }>({});
  const [open, setOpen] = useState<string>();
  const list = useLoad(
    () =>
      unwrap(
        s.client.GET('/v1/transaction-history', {
          params: {
            query: {
              limit: 50,
              ...(filter.status ? { status: filter.status } : {}),
              ...(filter.from ? { from: filter.from } : {}),
              ...(filter.to ? { to: filter.to } : {}),
            },
          },
        }),
      ),
    [s.client, filter],
  );
  return (
    <Page title="Transactions">
      <Form
        label="Filter transactions"
        submit="Apply filters"
        onSubmit={async (f) => {
          const day = (v: FormDataEntryValue | null, end: boolean) =>
            v ? new Date(`${String(v)}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString() : undefined;
          const status = String(f.get('status') ?? '');
          setFilter({
            status: status ? (status as Transaction['status']) : undefined,
            from: day(f.get('from'), false),
            to: day(f.get('to'), true),
          });
        }}
      >
        <div className="row filters">
          <Select label="Status" name="status" options={[['', 'Any status'], ...STATUSES]} defaultValue="" />
          <Field label="From" name="from" type="date" />
          <Field label="To" name="to" type="date" />
        </div>
      </Form>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption={`Transactions (${list.data.total})`}
          rows={list.data.transactions}
          rowKey={(t) => t.reference}
          empty="No transactions match."
          columns={[
            ...transactionColumns,
            {
              header: 'Detail',
              cell: (t) => <DetailToggle id={t.reference} open={open} onToggle={setOpen} />,
            },
          ]}
        />
      )}
      {open && <Detail reference={open} onChanged={list.reload} />}
      {s.acting!.kind === 'merchant' && <MerchantSettlements />}
      {s.acting!.kind === 'bank' && <BankSettlementReport />}
    </Page>
  );
}

function Detail({ reference, onChanged }: { reference: string; onChanged(): void }) {
  const s = useSession();
  const t = useLoad(() => unwrap(s.client.GET('/v1/transaction-details', { params: { query: { reference } } })), [s.client, reference]);
  const [refunded, setRefunded] = useState<string>();
  const refundable =
    t.data && (t.data.status === 'succeeded' || t.data.status === 'partially_refunded') && s.can('POST', '/v1/refunds/initiate');
  return (
    <section aria-labelledby="txn-h" className="detail">
      <h2 id="txn-h">Transaction {reference}</h2>
      {t.loading && <Loading />}
      <ErrorMessage error={t.error} />
      {t.data && <Json value={t.data} />}
      {refundable && (
        <Form
          label="Refund"
          submit="Refund"
          onSubmit={async (f) => {
            const amount = String(f.get('amount') ?? '').trim();
            const reason = String(f.get('reason') ?? '').trim();
            const r = await unwrap(
              s.client.POST('/v1/refunds/initiate', {
                body: { reference, ...(amount ? { amount: Number(amount) } : {}), ...(reason ? { reason } : {}) },
              }),
            );
            setRefunded(`Refund ${r.refundId} of ${money(r.amount)} is ${r.status}.`);
            t.reload();
            onChanged();
          }}
        >
          <Field label="Refund amount (NGN)" name="amount" hint="Leave empty to refund the whole remainder." />
          <Field label="Reason" name="reason" />
        </Form>
      )}
      {refunded && (
        <p role="status" className="notice">
          {refunded}
        </p>
      )}
      {t.data && (s.acting!.kind === 'merchant' || s.acting!.kind === 'bank') && (
        <TransactionDisputes
          reference={reference}
          canDispute={t.data.status === 'succeeded' || t.data.status === 'partially_refunded'}
          onChanged={() => {
            t.reload();
            onChanged();
          }}
        />
      )}
    </section>
  );
}
