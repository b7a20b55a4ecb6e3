import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { Link } from '../router';
import { usePagedList } from '../paged';
import type { Schemas } from '../sdk-types';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, Table } from '../ui';

type Status = Schemas['ScheduleSummary']['status'];
const STATUSES = ['active', 'processing', 'paused', 'cancelled', 'completed'] as const satisfies readonly Status[];

/** A merchant's recurring schedules: pause, resume, skip the next run, cancel. */
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
  const path = (scheduleId: string) => ({ params: { path: { scheduleId } } });
  const can = (method: 'POST' | 'DELETE', p: string) => s.can(method, p);
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
      {list.data && !list.loading && (
        <Table
          caption={`Recurring schedules, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(r) => r.scheduleId}
          empty="No recurring schedules yet."
          columns={[
            {
              header: 'Schedule',
              cell: (r) => (
                <Link to={`schedules/${encodeURIComponent(r.scheduleId)}`}>
                  <code>{r.scheduleId}</code>
                </Link>
              ),
            },
            { header: 'Customer', cell: (r) => r.customerId },
            { header: 'Amount', cell: (r) => money(r.amount) },
            { header: 'Frequency', cell: (r) => r.frequency },
            { header: 'Status', cell: (r) => <span className={`badge ${r.status}`}>{r.status}</span> },
            { header: 'Next billing', cell: (r) => when(r.nextBillingDate) },
            { header: 'Billings', cell: (r) => r.totalBillings },
            {
              header: 'Actions',
              cell: (r) => (
                <span className="row">
                  {r.status === 'active' && can('POST', '/v1/recurring/{scheduleId}/pause') && (
                    <ActionButton
                      label="Pause"
                      action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/pause', { ...path(r.scheduleId), body: {} }))}
                      onDone={list.reload}
                    />
                  )}
                  {r.status === 'paused' && can('POST', '/v1/recurring/{scheduleId}/resume') && (
                    <ActionButton
                      label="Resume"
                      action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/resume', path(r.scheduleId)))}
                      onDone={list.reload}
                    />
                  )}
                  {r.status === 'active' && can('POST', '/v1/recurring/{scheduleId}/skip') && (
                    <ActionButton
                      label="Skip next run"
                      confirm={{ title: 'Skip the next run?', message: <p>The next billing of {r.scheduleId} does not happen.</p> }}
                      action={() => unwrap(s.client.POST('/v1/recurring/{scheduleId}/skip', { ...path(r.scheduleId), body: {} }))}
                      onDone={list.reload}
                    />
                  )}
                  {(r.status === 'active' || r.status === 'paused') && can('DELETE', '/v1/recurring/{scheduleId}') && (
                    <ActionButton
                      label="Cancel"
                      danger
                      confirm={{ title: 'Cancel this schedule?', message: <p>{r.scheduleId} bills no more. This cannot be undone.</p> }}
                      action={() => unwrap(s.client.DELETE('/v1/recurring/{scheduleId}', path(r.scheduleId)))}
                      onDone={list.reload}
                    />
                  )}
                </span>
              ),
            },
          ]}
        />
      )}
      {paged.pager}
    </Page>
  );
}
