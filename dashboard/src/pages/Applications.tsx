import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Loading, Page, Select, Table, useLoad } from '../ui';

type Status = 'pending' | 'approved' | 'rejected';

/** The operator's queue of merchant and provider applications: approve, or reject with a reason. */
export function ApplicationsPage() {
  const s = useSession();
  const [status, setStatus] = useState<Status>('pending');
  const list = useLoad(
    () => unwrap(s.client.GET('/v1/operator/applications', { params: { query: { status, limit: 50 } } })),
    [s.client, status],
  );
  return (
    <Page title="Applications">
      <div className="row filters">
        <Select
          label="Status"
          name="status"
          options={['pending', 'approved', 'rejected']}
          defaultValue="pending"
          onChange={(v) => setStatus(v as Status)}
        />
      </div>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption={`Applications (${status})`}
          rows={list.data.applications}
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
