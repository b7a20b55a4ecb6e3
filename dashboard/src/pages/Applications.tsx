import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { ActionButton, ErrorMessage, Loading, Page, Select, Table } from '../ui';

type Status = 'pending' | 'approved' | 'rejected';

/**
 * The operator's queue of merchant and provider applications, oldest first: approve, or reject
 * with a reason. The status filter and the page are in the URL (DESIGN 10.7), paged by cursor.
 */
export function ApplicationsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['status'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const r = await unwrap(
        s.client.GET('/v1/operator/applications', { params: { query: { ...paging, status: (f.status ?? 'pending') as Status } } }),
      );
      return { items: r.applications, hasMore: r.hasMore };
    },
    cursorOf: (a) => a.applicationId,
  });
  const status = (paged.filters.status ?? 'pending') as Status;
  const list = paged.list;
  return (
    <Page title="Applications">
      <div className="row filters" key={paged.formKey}>
        <Select
          label="Status"
          name="status"
          options={['pending', 'approved', 'rejected']}
          defaultValue={status}
          onChange={(v) => paged.setFilters({ status: v === 'pending' ? undefined : v })}
        />
      </div>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {paged.ready && (
        <Table
          caption={`Applications (${status}), page ${paged.page}`}
          rows={paged.rows}
          rowKey={(a) => a.applicationId}
          empty={`No ${status} applications.`}
          columns={[
            { header: 'Business', cell: (a) => a.businessName },
            { header: 'Type', cell: (a) => a.type },
            { header: 'Email', cell: (a) => a.email },
            { header: 'Registration', cell: (a) => a.registrationNumber },
            { header: 'Applied', cell: (a) => when(a.createdAt) },
            { header: 'Status', cell: (a) => (a.reason ? `${a.status}: ${a.reason}` : a.status) },
            {
              header: 'Decide',
              cell: (a) =>
                a.status === 'pending' ? (
                  <span className="row">
                    <ActionButton
                      label="Approve"
                      action={() =>
                        unwrap(s.client.POST('/v1/operator/applications/{id}/approve', { params: { path: { id: a.applicationId } } }))
                      }
                      onDone={list.reload}
                    />
                    <Reject id={a.applicationId} onDone={list.reload} />
                  </span>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
      {paged.pager}
    </Page>
  );
}

function Reject({ id, onDone }: { id: string; onDone(): void }) {
  const s = useSession();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<Error>();
  return (
    <span className="row">
      <label className="inline">
        <span className="visually-hidden">Reason for rejecting</span>
        <input value={reason} placeholder="Reason" onChange={(e) => setReason(e.target.value)} />
      </label>
      <button
        type="button"
        className="danger"
        onClick={() =>
          unwrap(s.client.POST('/v1/operator/applications/{id}/reject', { params: { path: { id } }, body: { reason } })).then(
            onDone,
            (e: Error) => setError(e),
          )
        }
      >
        Reject
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}
