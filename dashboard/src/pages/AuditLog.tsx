import { unwrap } from '../api';
import { when } from '../format';
import { usePagedList } from '../paged';
import { useSession } from '../session';
import { ErrorMessage, Loading, Page, Table } from '../ui';

/** Who changed what, newest first; the page in the URL. */
export function AuditLogPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: [] as const,
    deps: [s.client],
    load: async (_f, paging) => {
      const r = await unwrap(s.client.GET('/v1/audit-log', { params: { query: paging } }));
      return { items: r.entries, hasMore: r.hasMore };
    },
    cursorOf: (e) => e.id,
  });
  return (
    <Page title="Audit log">
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.ready && (
        <Table
          caption={`Audit log entries, page ${paged.page}`}
          rows={paged.rows}
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
      {paged.pager}
    </Page>
  );
}
