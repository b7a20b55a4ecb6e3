import { useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { Link } from '../router';
import { usePagedList } from '../paged';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, Table } from '../ui';
import type { Schemas } from '../sdk-types';

type Value = Schemas['CustomerDecision']['decision'];
const VALUES = ['approve_once', 'approve_recurring', 'deny', 'suspended'] as const satisfies readonly Value[];

/** A bank's customer decisions: filters and the page in the URL, then change one (the customer's wish, relayed). */
export function DecisionsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['customerId', 'entityId', 'decision'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const query = {
        ...paging,
        ...(f.customerId ? { customerId: f.customerId } : {}),
        ...(f.entityId ? { entityId: f.entityId } : {}),
        ...(f.decision ? { decision: f.decision as Value } : {}),
      };
      const r = await s.client.GET('/v1/bank/customer-decisions', { params: { query } });
      // `hasMore` is at the envelope's top level beside the array (the document does not type it there).
      return { items: await unwrap(Promise.resolve(r)), hasMore: (r.data as { hasMore?: boolean } | undefined)?.hasMore === true };
    },
    cursorOf: (d) => d.id,
  });
  const canChange = s.can('PUT', '/v1/bank/customer-decisions/{id}');
  const { customerId, entityId, decision } = paged.filters;
  return (
    <Page title="Decisions">
      <Form
        label="Filter decisions"
        submit="Apply filters"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '').trim() || undefined;
          paged.setFilters({ customerId: v('customerId'), entityId: v('entityId'), decision: v('decision') });
        }}
      >
        <div className="row filters" key={paged.formKey}>
          <Field label="Customer id" name="customerId" defaultValue={customerId} />
          <Field label="Merchant id" name="entityId" defaultValue={entityId} />
          <Select label="Decision" name="decision" options={[['', 'Any decision'], ...VALUES]} defaultValue={decision ?? ''} />
        </div>
      </Form>
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.list.data && !paged.list.loading && (
        <Table
          caption={`Customer decisions, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(d) => d.id}
          empty="No decisions match."
          columns={[
            {
              header: 'Decision',
              cell: (d) => (
                <Link to={`decisions/${encodeURIComponent(d.id)}`}>
                  <code>{d.id}</code>
                </Link>
              ),
            },
            { header: 'Customer', cell: (d) => <code>{d.customerId}</code> },
            { header: 'Merchant', cell: (d) => <code>{d.entityId}</code> },
            { header: 'Status', cell: (d) => <span className={`badge ${d.decision}`}>{d.decision.replace('_', ' ')}</span> },
            { header: 'Single limit', cell: (d) => money(d.spendingLimits?.single ?? null) },
            { header: 'Last used', cell: (d) => when(d.lastUsed) },
            {
              header: 'Change',
              cell: (d) => (canChange ? <Change id={d.id} current={d.decision} onDone={paged.list.reload} /> : '—'),
            },
          ]}
        />
      )}
      {paged.pager}
    </Page>
  );
}

function Change({ id, current, onDone }: { id: string; current: Value; onDone(): void }) {
  const s = useSession();
  const [value, setValue] = useState<Value>(current);
  return (
    <span className="row">
      <label className="inline">
        <span className="visually-hidden">New decision</span>
        <select value={value} onChange={(e) => setValue(e.target.value as Value)}>
          {VALUES.map((v) => (
            <option key={v} value={v}>
              {v.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <ActionButton
        label="Save decision"
        action={() =>
          unwrap(s.client.PUT('/v1/bank/customer-decisions/{id}', { params: { path: { id } }, body: { customerDecision: value } }))
        }
        onDone={onDone}
      />
    </span>
  );
}
