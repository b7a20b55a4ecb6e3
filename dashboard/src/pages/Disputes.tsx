import { useId, useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { ActionButton, DetailToggle, ErrorMessage, Field, Form, Loading, Page, Select, Table, useLoad, type Column } from '../ui';
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

const columns: Column<Dispute>[] = [
  { header: 'Dispute', cell: (d) => <code>{d.disputeId}</code> },
  { header: 'Transaction', cell: (d) => <code>{d.reference}</code> },
  { header: 'Status', cell: (d) => <span className={`badge ${d.status}`}>{label(d.status)}</span> },
  { header: 'Amount', cell: (d) => money(d.amount) },
  { header: 'Reason', cell: (d) => label(d.reason) },
  { header: 'Merchant', cell: (d) => d.merchantName },
  { header: 'Respond by', cell: (d) => (d.status === 'needs_response' ? when(d.respondBy) : '—') },
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
  const [open, setOpen] = useState<string>();
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
        <DisputeTable
          disputes={paged.rows}
          open={open}
          onToggle={setOpen}
          caption={`Disputes, page ${paged.page}`}
          empty="No disputes match."
        />
      )}
      {paged.pager}
      {open && <DisputeDetail key={open} disputeId={open} onChanged={list.reload} />}
    </Page>
  );
}

function DisputeTable(props: { disputes: Dispute[]; open?: string; onToggle(id?: string): void; caption: string; empty: string }) {
  return (
    <Table
      caption={props.caption}
      rows={props.disputes}
      rowKey={(d) => d.disputeId}
      empty={props.empty}
      columns={[
        ...columns,
        { header: 'Detail', cell: (d) => <DetailToggle id={d.disputeId} open={props.open} onToggle={props.onToggle} /> },
      ]}
    />
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

/** One dispute: its fields, and what the caller may do with it now. */
function DisputeDetail({ disputeId, onChanged }: { disputeId: string; onChanged(): void }) {
  const s = useSession();
  const bank = s.acting!.kind === 'bank';
  const d = useLoad(
    () =>
      bank
        ? unwrap(s.client.GET('/v1/bank/disputes/{disputeId}', { params: { path: { disputeId } } }))
        : unwrap(s.client.GET('/v1/disputes/{disputeId}', { params: { path: { disputeId } } })),
    [s.client, bank, disputeId],
  );
  const [confirming, setConfirming] = useState(false);
  const changed = () => {
    d.reload();
    onChanged();
  };
  const v = d.data;
  const path = { params: { path: { disputeId } } };
  return (
    <section aria-labelledby="dispute-h" className="detail">
      <h2 id="dispute-h">Dispute {disputeId}</h2>
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {v && (
        <dl className="facts">
          <dt>Status</dt>
          <dd>{label(v.status)}</dd>
          <dt>Transaction</dt>
          <dd>
            <code>{v.reference}</code>
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
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Accept dispute
          </button>
          {confirming && (
            <ConfirmDialog
              title="Accept this dispute?"
              text={`${money(v.amount)} stays with the customer's bank. This cannot be undone.`}
              onCancel={() => setConfirming(false)}
              onConfirm={async () => {
                await unwrap(s.client.POST('/v1/disputes/{disputeId}/accept', { ...path, body: {} }));
                setConfirming(false);
                changed();
              }}
            />
          )}
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
    </section>
  );
}

/** The disputes of one transaction (its detail), with the bank's form to open one. */
export function TransactionDisputes({ reference, canDispute, onChanged }: { reference: string; canDispute: boolean; onChanged(): void }) {
  const s = useSession();
  // A transaction's disputes are few: the first 100 (the API's largest page).
  const list = useLoad(async () => (await disputePage(s, { reference }, { limit: 100 })).items, [s.client, reference]);
  const [open, setOpen] = useState<string>();
  const bank = s.acting!.kind === 'bank';
  return (
    <section aria-labelledby="txn-disputes-h">
      <h3 id="txn-disputes-h">Disputes</h3>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <DisputeTable
          disputes={list.data}
          open={open}
          onToggle={setOpen}
          caption={`Disputes of ${reference}`}
          empty="No disputes of this transaction."
        />
      )}
      {open && <DisputeDetail key={open} disputeId={open} onChanged={list.reload} />}
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

/** A confirmation (DESIGN 9.7): role `dialog`, buttons `Confirm` and `Cancel`; the API's refusal is shown in it. */
function ConfirmDialog(props: { title: string; text: string; onConfirm(): Promise<void>; onCancel(): void }) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  return (
    <div role="dialog" aria-modal="true" aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`} className="dialog">
      <h3 id={`${id}-t`}>{props.title}</h3>
      <p id={`${id}-d`}>{props.text}</p>
      <ErrorMessage error={error} />
      <div className="row">
        <button
          type="button"
          className="danger"
          disabled={busy}
          // biome-ignore lint/a11y/noAutofocus: a dialog moves focus to its action
          autoFocus
          onClick={async () => {
            setBusy(true);
            setError(undefined);
            try {
              await props.onConfirm();
            } catch (e) {
              setError(e as Error);
            } finally {
              setBusy(false);
            }
          }}
        >
          Confirm
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
