import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Loading, Page, Table, useLoad } from '../ui';

/** A merchant's recurring schedules: pause, resume, skip the next run, cancel. */
export function SchedulesPage() {
  const s = useSession();
  const list = useLoad(() => unwrap(s.client.GET('/v1/recurring', { params: { query: { limit: 50 } } })), [s.client]);
  const path = (scheduleId: string) => ({ params: { path: { scheduleId } } });
  const can = (method: 'POST' | 'DELETE', p: string) => s.can(method, p);
  return (
    <Page title="Schedules">
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption={`Recurring schedules (${list.data.total})`}
          rows={list.data.schedules}
          rowKey={(r) => r.scheduleId}
          empty="No recurring schedules yet."
          columns={[
            { header: 'Schedule', cell: (r) => <code>{r.scheduleId}</code> },
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
    </Page>
  );
}
