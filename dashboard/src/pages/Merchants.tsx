import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { usePagedList } from '../paged';
import { ActionButton, ErrorMessage, Loading, Page, Select, Table } from '../ui';

type Level = 'basic' | 'enhanced' | 'premium';

/** A provider's merchants and the trust it vouches for each. */
export function MerchantsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['trusted'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const query = { ...paging, ...(f.trusted ? { trusted: f.trusted as 'true' | 'false' } : {}) };
      const r = await unwrap(s.client.GET('/v1/provider/merchants', { params: { query } }));
      return { items: r.merchants, hasMore: r.hasMore };
    },
    cursorOf: (m) => m.id,
  });
  const list = paged.list;
  const canTrust = s.can('PATCH', '/v1/provider/merchant/trust');
  const setTrust = (entityId: string, trusted: boolean, trustLevel?: Level) =>
    unwrap(s.client.PATCH('/v1/provider/merchant/trust', { body: { entityId, trusted, ...(trustLevel ? { trustLevel } : {}) } }));
  return (
    <Page title="Merchants">
      <div className="row filters" key={paged.formKey}>
        <Select
          label="Trust"
          name="trusted"
          options={[
            ['', 'Any'],
            ['true', 'Trusted'],
            ['false', 'Not trusted'],
          ]}
          defaultValue={paged.filters.trusted ?? ''}
          onChange={(v) => paged.setFilters({ trusted: v })}
        />
      </div>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {paged.ready && (
        <Table
          caption={`Merchants, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(m) => m.id}
          empty="No merchants yet."
          columns={[
            { header: 'Merchant', cell: (m) => m.name },
            { header: 'Email', cell: (m) => m.email },
            { header: 'Trusted', cell: (m) => (m.trusted ? 'Trusted' : 'Not trusted') },
            { header: 'Trust level', cell: (m) => m.trustLevel },
            { header: 'Since', cell: (m) => when(m.createdAt) },
            {
              header: 'Trust',
              cell: (m) =>
                canTrust ? (
                  <span className="row">
                    {m.trusted ? (
                      <ActionButton label="Revoke trust" danger action={() => setTrust(m.id, false)} onDone={list.reload} />
                    ) : (
                      <ActionButton label="Trust" action={() => setTrust(m.id, true)} onDone={list.reload} />
                    )}
                    {m.trustLevel !== 'enhanced' && (
                      <ActionButton label="Set enhanced" action={() => setTrust(m.id, m.trusted, 'enhanced')} onDone={list.reload} />
                    )}
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
