import { useId, useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { Link } from '../router';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, Table, useLoad, type Column } from '../ui';
import type { Schemas } from '../sdk-types';

type Dispute = Schemas['Dispute'];
const STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const satisfies readonly Dispute['status'][];
const REASONS = [
  'unauthorized',
  'not_received',
  'duplicate',
  'amount_incorrect',
  'cancelled_recurring',
  'other',
] as const satisfies readonly Dispute['reason'][];
const label = (v: string) => v.replace(/_/g, ' ');

/** A transaction's reference, linked to its page. */
const TransactionLink = ({ reference }: { reference: string }) => (
  <Link to={`transactions/${encodeURIComponent(reference)}`}>
    <code>{reference}</code>
  </Link>
);

const columns: Column<Dispute>[] = [
  { header: 'Dispute', cell: (d) => <code>{d.disputeId}</code> },
  { header: 'Transaction', cell: (d) => <TransactionLink reference={d.reference} /> },
  { header: 'Status', cell: (d) => <span className={`badge ${d.status}`}>{label(d.status)}</span> },
  { header: 'Amount', cell: (d) => money(d.amount) },
  { header: 'Reason', cell: (d) => label(d.reason) },
  { header: 'Merchant', cell: (d) => d.merchantName },
  { header: 'Respond by', cell: (d) => (d.status === 'needs_response' ? when(d.respondBy) : '—') },
  {
    header: 'Detail',
    cell: (d) => (
      <Link to={`disputes/${encodeURIComponent(d.disputeId)}`} aria-label={`View ${d.disputeId}`}>
        View
      </Link>
    ),
  },
];

type Session = ReturnType<typeof useSession>;

/** One page of the disputes of the acting merchant or bank (optionally of one transaction), newest first. */
async function disputePage(
  s: Session,
  filter: { status?: string; reference?: string },
  paging: { limit: number; startingAfter?: string },
): Promise<{ items: Dispute[]; hasMore: boolean }> {
  const query = {
    ...paging,
    ...(filter.status ? { status: filter.status as Dispute['status'] } : {}),
    ...(filter.reference ? { reference: filter.reference } : {}),
  };
  const page =
    s.acting!.kind === 'bank'
      ? await unwrap(s.client.GET('/v1/bank/disputes', { params: { query } }))
      : await unwrap(s.client.GET('/v1/disputes', { params: { query } }));
  return { items: page.disputes, hasMore: page.hasMore };
}

/**
 * Disputes (DESIGN 9.4). A merchant answers with evidence or accepts (after a confirmation);
 * the customer's bank opens a dispute on a transaction and decides it. The status filter and
 * the page are in the URL.
 */
export function DisputesPage() {
  const s = useSession();
  const bank = s.acting!.kind === 'bank';
  const paged = usePagedList({
    filters: ['status'] as const,
    deps: [s.client],
    load: (f, paging) => disputePage(s, f, paging),
    cursorOf: (d) => d.disputeId,
  });
  const list = paged.list;
  return (
    <Page title="Disputes">
      {bank && s.can('POST', '/v1/bank/disputes') && <OpenDispute onOpened={list.reload} />}
      <div className="row filters" key={paged.formKey}>
        <Select
          label="Status"
          name="status"
          options={[['', 'Any status'], ...STATUSES.map((x): [string, string] => [x, label(x)])]}
          defaultValue={paged.filters.status ?? ''}
          onChange={(v) => paged.setFilters({ status: v })}
        />
      </div>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {paged.ready && (
        <Table
          caption={`Disputes, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(d) => d.disputeId}
          empty="No disputes match."
          columns={columns}
        />
      )}
      {paged.pager}
    </Page>
  );
}

/** The bank disputes a transaction of one of its customers (`reference` given: from the transaction's page). */
export function OpenDispute({ reference, onOpened }: { reference?: string; onOpened(): void }) {
  const s = useSession();
  const [done, setDone] = useState<string>();
  return (
    <>
      <Form
        label="Open a dispute"
        submit="Open dispute"
        onSubmit={async (f) => {
          const amount = String(f.get('amount') ?? '').trim();
          const d = await unwrap(
            s.client.POST('/v1/bank/disputes', {
              body: {
                reference: reference ?? String(f.get('reference') ?? '').trim(),
                reason: String(f.get('reason')) as Dispute['reason'],
                ...(amount ? { amount: Number(amount) } : {}),
              },
            }),
          );
          setDone(`Dispute ${d.disputeId} of ${money(d.amount)} opened: the merchant has until ${when(d.respondBy)} to respond.`);
          onOpened();
        }}
      >
        {!reference && <Field label="Transaction reference" name="reference" required />}
        <Select label="Reason" name="reason" options={REASONS.map((x): [string, string] => [x, label(x)])} defaultValue="unauthorized" />
        <Field label="Dispute amount (NGN)" name="amount" hint="Leave empty to dispute all that is left." />
      </Form>
      {done && (
        <p role="status" className="notice">
          {done}
        </p>
      )}
    </>
  );
}

/**
 * `/dashboard/disputes/<id>` (DESIGN 10.7): one dispute, its evidence and deadline, its
 * transaction as a link, and what the caller may do with it now.
 */
export function DisputePage({ disputeId }: { disputeId: string }) {
  const s = useSession();
  const bank = s.acting!.kind === 'bank';
  const d = useLoad(
    () =>
      bank
        ? unwrap(s.client.GET('/v1/bank/disputes/{disputeId}', { params: { path: { disputeId } } }))
        : unwrap(s.client.GET('/v1/disputes/{disputeId}', { params: { path: { disputeId } } })),
    [s.client, bank, disputeId],
  );
  const changed = () => d.reload();
  const v = d.data;
  const path = { params: { path: { disputeId } } };
  return (
    <Page title={`Dispute ${disputeId}`}>
      <p>
        <Link to="disputes">All disputes</Link>
      </p>
      {d.loading && !v && <Loading />}
      <ErrorMessage error={d.error} />
      {v && (
        <dl className="facts">
          <dt>Status</dt>
          <dd>{label(v.status)}</dd>
          <dt>Transaction</dt>
          <dd>
            <TransactionLink reference={v.reference} />
          </dd>
          <dt>Amount</dt>
          <dd>{money(v.amount)}</dd>
          <dt>Reason</dt>
          <dd>{label(v.reason)}</dd>
          <dt>Respond by</dt>
          <dd>{when(v.respondBy)}</dd>
          <dt>Evidence</dt>
          <dd className="evidence">{v.evidence ? v.evidence.text : 'None yet'}</dd>
          {v.closedAt && (
            <>
              <dt>Closed</dt>
              <dd>
                {when(v.closedAt)} by {v.closedBy}
              </dd>
            </>
          )}
        </dl>
      )}
      {v && !bank && v.status === 'needs_response' && s.can('POST', '/v1/disputes/{disputeId}/respond') && (
        <>
          <Form
            label="Respond to the dispute"
            submit="Submit evidence"
            onSubmit={async (f) => {
              await unwrap(
                s.client.POST('/v1/disputes/{disputeId}/respond', {
                  ...path,
                  body: { evidence: { text: String(f.get('evidence') ?? '') } },
                }),
              );
              changed();
            }}
          >
            <TextArea
              label="Evidence"
              name="evidence"
              hint="What shows the customer authorised and received what they paid for (up to 5,000 characters)."
            />
          </Form>
          <ActionButton
            label="Accept dispute"
            danger
            confirm={{
              title: 'Accept this dispute?',
              message: <p>{money(v.amount)} stays with the customer's bank. This cannot be undone.</p>,
            }}
            action={() => unwrap(s.client.POST('/v1/disputes/{disputeId}/accept', { ...path, body: {} }))}
            onDone={changed}
          />
        </>
      )}
      {v &&
        bank &&
        (v.status === 'needs_response' || v.status === 'under_review') &&
        s.can('POST', '/v1/bank/disputes/{disputeId}/resolve') && (
          <div className="row">
            <ActionButton
              label="Resolve: merchant wins"
              action={() => unwrap(s.client.POST('/v1/bank/disputes/{disputeId}/resolve', { ...path, body: { outcome: 'won' } }))}
              onDone={changed}
            />
            <ActionButton
              label="Resolve: customer wins"
              danger
              action={() => unwrap(s.client.POST('/v1/bank/disputes/{disputeId}/resolve', { ...path, body: { outcome: 'lost' } }))}
              onDone={changed}
            />
          </div>
        )}
    </Page>
  );
}

/** The disputes of one transaction (its detail), with the bank's form to open one. */
export function TransactionDisputes({ reference, canDispute, onChanged }: { reference: string; canDispute: boolean; onChanged(): void }) {
  const s = useSession();
  // A transaction's disputes are few: the first 100 (the API's largest page).
  const list = useLoad(async () => (await disputePage(s, { reference }, { limit: 100 })).items, [s.client, reference]);
  const bank = s.acting!.kind === 'bank';
  return (
    <section aria-labelledby="txn-disputes-h">
      <h3 id="txn-disputes-h">Disputes</h3>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption={`Disputes of ${reference}`}
          rows={list.data}
          rowKey={(d) => d.disputeId}
          empty="No disputes of this transaction."
          columns={columns}
        />
      )}
      {bank && canDispute && s.can('POST', '/v1/bank/disputes') && (
        <OpenDispute
          reference={reference}
          onOpened={() => {
            list.reload();
            onChanged();
          }}
        />
      )}
    </section>
  );
}

function TextArea({ label: text, name, hint }: { label: string; name: string; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{text}</label>
      <textarea id={id} name={name} required maxLength={5000} rows={5} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}
