import { useState } from 'react';
import { unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, Table, useLoad } from '../ui';
import type { Schemas } from '../sdk-types';

type Value = Schemas['CustomerDecision']['decision'];
const VALUES = ['approve_once', 'approve_recurring', 'deny', 'suspended'] as const satisfies readonly Value[];

/** A bank's customer decisions: filter, then change one (the customer's wish, relayed). */
export function DecisionsPage() {
  const s = useSession();
  const [filter, setFilter] = useState<{ customerId?: string; decision?: Value }>({});
  const list = useLoad(
    () => unwrap(s.client.GET('/v1/bank/customer-decisions', { params: { query: { limit: 50, ...filter } } })),
    [s.client, filter],
  );
  const canChange = s.can('PUT', '/v1/bank/customer-decisions/{id}');
  return (
    <Page title="Decisions">
      <Form
        label="Filter decisions"
        submit="Apply filters"
        onSubmit={async (f) => {
          const customerId = String(f.get('customerId') ?? '').trim();
          const decision = String(f.get('decision') ?? '');
          setFilter({ ...(customerId ? { customerId } : {}), ...(decision ? { decision: decision as Value } : {}) });
        }}
      >
        <div className="row filters">
          <Field label="Customer id" name="customerId" />
          <Select label="Decision" name="decision" options={[['', 'Any decision'], ...VALUES]} defaultValue="" />
        </div>
      </Form>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Customer decisions"
          rows={list.data}
          rowKey={(d) => d.id}
          empty="No decisions match."
          columns={[
            { header: 'Customer', cell: (d) => d.customerId },
            { header: 'Merchant', cell: (d) => d.entityId },
            { header: 'Decision', cell: (d) => <span className={`badge ${d.decision}`}>{d.decision.replace('_', ' ')}</span> },
            { header: 'Single limit', cell: (d) => money(d.spendingLimits?.single ?? null) },
            { header: 'Last used', cell: (d) => when(d.lastUsed) },
            {
              header: 'Change',
              cell: (d) => (canChange ? <Change id={d.id} current={d.decision} onDone={list.reload} /> : '—'),
            },
          ]}
        />
      )}
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
