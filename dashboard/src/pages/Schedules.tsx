import type { ReactNode } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { Link } from '../router';
import { usePagedList } from '../paged';
import type { QueryOf, Schemas } from '../sdk-types';
import { ActionButton, CustomerNamed, ErrorMessage, Field, Form, Loading, Page, Select, Table, useLoad } from '../ui';
import { transactionColumns } from './Transactions';

type Status = NonNullable<QueryOf<'/v1/recurring'>['status']>;
const STATUSES = ['active', 'processing', 'paused', 'cancelled', 'completed'] as const satisfies readonly Status[];

/** A schedule's page (deep-linkable: DESIGN 9.7). */
export const schedulePath = (scheduleId: string) => `schedules/${encodeURIComponent(scheduleId)}`;

/** Each billing's interval in words: `monthly`, `every 2 weeks`. */
const every = (frequency: string, interval: number) =>
  interval === 1
    ? frequency
    : `every ${interval} ${{ daily: 'days', weekly: 'weeks', monthly: 'months', yearly: 'years' }[frequency] ?? frequency}`;

/** A merchant's recurring schedules: filters and the page in the URL; pause, resume, skip the next run, cancel. */
export function SchedulesPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['customerId', 'status'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const query = {
        ...paging,
        ...(f.customerId ? { customerId: f.customerId } : {}),
        ...(f.status ? { status: f.status as Status } : {}),
      };
      const r = await unwrap(s.client.GET('/v1/recurring', { params: { query } }));
      return { items: r.schedules, hasMore: r.hasMore };
    },
    cursorOf: (r) => r.scheduleId,
  });
  const list = paged.list;
  return (
    <Page title="Schedules">
      <Form
        label="Filter schedules"
        submit="Apply filters"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '').trim() || undefined;
          paged.setFilters({ customerId: v('customerId'), status: v('status') });
        }}
      >
        <div className="row filters" key={paged.formKey}>
          <Field label="Customer id" name="customerId" defaultValue={paged.filters.customerId} />
          <Select label="Status" name="status" options={[['', 'Any status'], ...STATUSES]} defaultValue={paged.filters.status ?? ''} />
        </div>
      </Form>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {paged.ready && (
        <Table
          caption={`Recurring schedules, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(r) => r.scheduleId}
          empty="No recurring schedules match."
          columns={[
            {
              header: 'Schedule',
              cell: (r) => (
                <Link to={schedulePath(r.scheduleId)}>
                  <code>{r.scheduleId}</code>
                </Link>
              ),
            },
            { header: 'Customer', cell: (r) => <CustomerNamed id={r.customerId} customer={r.customer} /> },
            { header: 'Amount', cell: (r) => money(r.amount) },
            { header: 'Frequency', cell: (r) => r.frequency },
            { header: 'Status', cell: (r) => <span className={`badge ${r.status}`}>{r.status}</span> },
            { header: 'Next billing', cell: (r) => when(r.nextBillingDate) },
            { header: 'Billings', cell: (r) => r.totalBillings },
            { header: 'Actions', cell: (r) => <ScheduleActions schedule={r} onDone={list.reload} /> },
          ]}
        />
      )}
      {paged.pager}
    </Page>
  );
}

/** Pause, resume, skip the next run (after `Confirm`), cancel (after `Confirm`): what the schedule's status and the role allow. */
function ScheduleActions({ schedule: r, onDone }: { schedule: { scheduleId: string; status: Status }; onDone(): void }) {
  const s = useSession();
  const path = { params: { path: { scheduleId: r.scheduleId } } };
  return (
    <span className="row">
      {r.status === 'active' && s.can('POST', '/v1/recurring/{scheduleId}/pause') && (
        <ActionButton
          label="Pause"
          action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/pause', { ...path, body: {} }))}
          onDone={onDone}
        />
      )}
      {r.status === 'paused' && s.can('POST', '/v1/recurring/{scheduleId}/resume') && (
        <ActionButton label="Resume" action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/resume', path))} onDone={onDone} />
      )}
      {r.status === 'active' && s.can('POST', '/v1/recurring/{scheduleId}/skip') && (
        <ActionButton
          label="Skip next run"
          confirm={{ title: 'Skip the next run?', message: <p>The next billing of {r.scheduleId} does not happen.</p> }}
          action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/skip', { ...path, body: {} }))}
          onDone={onDone}
        />
      )}
      {(r.status === 'active' || r.status === 'paused') && s.can('DELETE', '/v1/recurring/{scheduleId}') && (
        <ActionButton
          label="Cancel"
          danger
          confirm={{ title: 'Cancel this schedule?', message: <p>{r.scheduleId} bills no more. This cannot be undone.</p> }}
          action={() => unwrap(s.client.DELETE('/v1/recurring/{scheduleId}', path))}
          onDone={onDone}
        />
      )}
    </span>
  );
}

type Schedule = Schemas['RecurringSchedule'];

/** `/dashboard/schedules/<id>`: one schedule's terms, customer, lifecycle and its latest runs (each linked to its transaction). */
export function SchedulePage({ scheduleId }: { scheduleId: string }) {
  const s = useSession();
  const r = useLoad(() => unwrap(s.client.GET('/v1/recurring/{scheduleId}', { params: { path: { scheduleId } } })), [s.client, scheduleId]);
  const x = r.data;
  return (
    <Page title={`Schedule ${scheduleId}`}>
      <p>
        <Link to="schedules">All schedules</Link>
      </p>
      {r.loading && <Loading />}
      <ErrorMessage error={r.error} />
      {x && (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <span className={`badge ${x.status}`}>{x.status}</span>
              {x.pauseReason ? ` (${x.pauseReason.replace(/_/g, ' ')})` : ''}
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerNamed id={x.customerId} customer={x.customer} />
            </dd>
            <dt>Amount</dt>
            <dd>
              {money(x.amount)} {every(x.frequency, x.interval)}
            </dd>
            <dt>Description</dt>
            <dd>{x.description ?? '—'}</dd>
            <dt>Starts</dt>
            <dd>{when(x.startDate)}</dd>
            <dt>Ends</dt>
            <dd>{x.endDate ? when(x.endDate) : x.maxBillings ? `after ${x.maxBillings} billings` : 'When cancelled'}</dd>
            <dt>Next billing</dt>
            <dd>{when(x.nextBillingDate)}</dd>
            <dt>Billings</dt>
            <dd>
              {x.totalBillings}
              {x.maxBillings ? ` of ${x.maxBillings}` : ''}
              {x.failedAttempts ? `, ${x.failedAttempts} failed attempts in a row` : ''}
            </dd>
            <Stamps schedule={x} />
            {x.pendingAmendment && (
              <>
                <dt>Amendment waiting</dt>
                <dd>
                  {money(x.pendingAmendment.to.amount)} {x.pendingAmendment.to.frequency} (from {money(x.pendingAmendment.from.amount)}{' '}
                  {x.pendingAmendment.from.frequency}), asked {when(x.pendingAmendment.requestedAt)}
                </dd>
              </>
            )}
            {x.metadata && Object.entries(x.metadata).map(([k, v]) => <MetadataFact key={k} name={k} value={v} />)}
          </dl>
          <ScheduleActions schedule={x} onDone={r.reload} />
          <h2 id="runs-h">Runs</h2>
          <Table
            caption={`Latest runs of ${scheduleId}`}
            rows={x.runs}
            rowKey={(t) => t.reference}
            empty="No run has billed yet."
            columns={transactionColumns.filter((c) => c.header !== 'Merchant')}
          />
        </>
      )}
    </Page>
  );
}

function Stamps({
  schedule: x,
}: {
  schedule: Pick<Schedule, 'createdAt' | 'updatedAt' | 'pausedAt' | 'resumedAt' | 'cancelledAt' | 'completedAt'>;
}) {
  const stamps: [string, string | null][] = [
    ['Created', x.createdAt],
    ['Paused', x.pausedAt],
    ['Resumed', x.resumedAt],
    ['Cancelled', x.cancelledAt],
    ['Completed', x.completedAt],
    ['Updated', x.updatedAt],
  ];
  return (
    <>
      {stamps
        .filter(([, at]) => at)
        .map(([label, at]) => (
          <Fact key={label} term={label}>
            {when(at)}
          </Fact>
        ))}
    </>
  );
}

const Fact = ({ term, children }: { term: string; children: ReactNode }) => (
  <>
    <dt>{term}</dt>
    <dd>{children}</dd>
  </>
);

const MetadataFact = ({ name, value }: { name: string; value: unknown }) => (
  <Fact term={`Metadata: ${name}`}>{typeof value === 'string' ? value : JSON.stringify(value)}</Fact>
);
