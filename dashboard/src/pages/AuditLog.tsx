import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ErrorMessage, Loading, Page, Table, useLoad } from '../ui';

export function AuditLogPage() {
  const s = useSession();
  const [after, setAfter] = useState<string[]>([]);
  const startingAfter = after[after.length - 1];
  const list = useLoad(
    () => unwrap(s.client.GET('/v1/audit-log', { params: { query: { limit: 50, ...(startingAfter ? { startingAfter } : {}) } } })),
    [s.client, startingAfter],
  );
  const entries = list.data?.entries ?? [];
  return (
    <Page title="Audit log">
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Audit log entries"
          rows={entries}
          rowKey={(e) => e.id}
          empty="Nothing recorded yet."
          columns={[
            { header: 'When', cell: (e) => when(e.at) },
            { header: 'Who', cell: (e) => `${e.actor.type}: ${e.actor.email ?? e.actor.id}` },
            { header: 'Action', cell: (e) => e.action },
            { header: 'Target', cell: (e) => e.target },
            { header: 'IP', cell: (e) => e.ip },
          ]}
        />
      )}
      <div className="row">
        {after.length > 0 && (
          <button type="button" className="secondary" onClick={() => setAfter(after.slice(0, -1))}>
            Newer
          </button>
        )}
        {list.data?.hasMore && (
          <button type="button" className="secondary" onClick={() => setAfter([...after, entries[entries.length - 1]!.id])}>
            Older
          </button>
        )}
      </div>
    </Page>
  );
}
