import { useState } from 'react';
import { ApiError, unwrap } from '../api';
import { money, when } from '../format';
import { useSession } from '../session';
import { Link } from '../router';
import { usePagedList } from '../paged';
import { ActionButton, CustomerNamed, ErrorMessage, Field, Form, Loading, Named, Page, Select, Table, useLoad } from '../ui';
import { schedulePath } from './Schedules';
import type { Schemas } from '../sdk-types';

type Decision = Schemas['CustomerDecision'];
type Value = Decision['decision'];

/** A decision's page (deep-linkable: DESIGN 9.7). */
export const decisionPath = (id: string) => `decisions/${encodeURIComponent(id)}`;
/** A bank's customer's page, its consents (DESIGN 10.5: pages/Consents.tsx). */
export const customerPath = (id: string) => `customers/${encodeURIComponent(id)}`;
const words = (v: string) => v.replace(/_/g, ' ');
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
      // `hasMore` is at the envelope's top level, beside the array.
      return { items: await unwrap(Promise.resolve(r)), hasMore: r.data?.hasMore === true };
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
      {paged.ready && (
        <Table
          caption={`Customer decisions, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(d) => d.id}
          empty="No decisions match."
          columns={[
            {
              header: 'Decision',
              cell: (d) => (
                <Link to={decisionPath(d.id)}>
                  <code>{d.id}</code>
                </Link>
              ),
            },
            { header: 'Customer', cell: (d) => <CustomerNamed id={d.customerId} customer={d.customer} /> },
            { header: 'Merchant', cell: (d) => <Named name={d.merchantName} id={d.entityId} /> },
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

/** What the decision page shows: the decision, with its customer and merchant named when the API says. */
type Shown = Decision & {
  remaining?: Schemas['RemainingLimits'];
  customer?: Schemas['CustomerName'] | null;
  merchantName?: string | null;
  lookupPhrase?: string;
};

const PERIODS = ['single', 'daily', 'weekly', 'monthly', 'yearly'] as const;

/**
 * `/dashboard/decisions/<id>`: one customer decision (a bank's customer's, or a merchant's own):
 * its limits and what is left of them, its consent terms, every version, the schedules under
 * it and a link to the customer's transactions. A bank changes it here too.
 */
export function DecisionPage({ id }: { id: string }) {
  const s = useSession();
  const bank = s.acting!.kind === 'bank';
  const path = { params: { path: { id } } };
  const d = useLoad(async (): Promise<Shown> => {
    if (!bank) return unwrap(s.client.GET('/v1/customer-decisions/{id}', path));
    const [found] = await unwrap(s.client.GET('/v1/bank/customer-decisions', { params: { query: { id } } }));
    if (!found) throw new ApiError(404, 'Customer decision not found');
    return found;
  }, [s.client, bank, id]);
  const history = useLoad(
    () =>
      bank
        ? unwrap(s.client.GET('/v1/bank/customer-decisions/{id}/history', path))
        : unwrap(s.client.GET('/v1/customer-decisions/{id}/history', path)),
    [s.client, bank, id],
  );
  const x = d.data;
  return (
    <Page title={`Decision ${id}`}>
      {bank && (
        <p>
          <Link to="decisions">All decisions</Link>
        </p>
      )}
      {d.loading && <Loading />}
      <ErrorMessage error={d.error} />
      {x && (
        <>
          <dl className="facts">
            <dt>Decision</dt>
            <dd>
              <span className={`badge ${x.decision}`}>{words(x.decision)}</span>
              {x.blockMerchant ? ' (merchant blocked)' : ''}
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerNamed id={x.customerId} customer={x.customer} />
              {bank && (
                <>
                  {' '}
                  (<Link to={customerPath(x.customerId)}>all consents</Link>)
                </>
              )}
            </dd>
            <dt>Merchant</dt>
            <dd>
              <Named name={x.merchantName} id={x.entityId} />
            </dd>
            {PERIODS.map((p) => (
              <Limit key={p} period={p} limit={x.spendingLimits?.[p]} left={x.remaining?.[p]} />
            ))}
            {x.maxPayments != null && (
              <>
                <dt>Payments allowed</dt>
                <dd>
                  {x.maxPayments}
                  {x.remaining?.payments != null ? ` (${x.remaining.payments} left)` : ''}
                </dd>
              </>
            )}
            <dt>Valid</dt>
            <dd>
              {x.validFrom || x.validTo
                ? `${x.validFrom ? `from ${when(x.validFrom)}` : ''} ${x.validTo ? `to ${when(x.validTo)}` : ''}`
                : 'No dates set'}
            </dd>
            {x.channel && (
              <>
                <dt>Consent</dt>
                <dd>
                  {words(x.channel)}
                  {x.customerAcceptedAt ? `, accepted ${when(x.customerAcceptedAt)}` : ''}
                </dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{when(x.createdAt)}</dd>
            <dt>Last used</dt>
            <dd>{when(x.lastUsed)}</dd>
          </dl>
          {bank && s.can('PUT', '/v1/bank/customer-decisions/{id}') && (
            <Change
              id={x.id}
              current={x.decision}
              onDone={() => {
                d.reload();
                history.reload();
              }}
            />
          )}
          <DecisionSchedules customerId={x.customerId} entityId={x.entityId} />
          <h2>History</h2>
          <ErrorMessage error={history.error} />
          {history.data && (
            <Table
              caption={`Versions of ${id}`}
              rows={[...history.data.versions].reverse()}
              rowKey={(v) => String(v.version)}
              empty="No versions."
              columns={[
                { header: 'Version', cell: (v) => v.version },
                { header: 'Decision', cell: (v) => words(v.decision) },
                { header: 'Single limit', cell: (v) => money(v.spendingLimits?.single ?? null) },
                { header: 'Changed', cell: (v) => when(v.changedAt) },
                { header: 'By', cell: (v) => `${v.actor.type}${v.reason ? ` (${words(v.reason)})` : ''}` },
              ]}
            />
          )}
        </>
      )}
    </Page>
  );
}

function Limit({ period, limit, left }: { period: string; limit?: number; left?: number | null }) {
  if (limit === undefined) return null;
  return (
    <>
      <dt>{period === 'single' ? 'Single payment limit' : `${period[0]!.toUpperCase()}${period.slice(1)} limit`}</dt>
      <dd>
        {money(limit)}
        {left != null && period !== 'single' ? ` (${money(left)} left)` : ''}
      </dd>
    </>
  );
}

/** The schedules under a decision: a bank's customer's subscriptions with that merchant, or a merchant's schedules of that customer. */
function DecisionSchedules({ customerId, entityId }: { customerId: string; entityId: string }) {
  const s = useSession();
  const bank = s.acting!.kind === 'bank';
  type Row = Pick<Schemas['RecurringSchedule'], 'scheduleId' | 'amount' | 'frequency' | 'status' | 'nextBillingDate' | 'totalBillings'>;
  const list = useLoad(async (): Promise<Row[]> => {
    if (bank) {
      const r = await unwrap(s.client.GET('/v1/bank/customer/subscriptions', { params: { query: { customerId, entityId, limit: 100 } } }));
      return r.subscriptions;
    }
    return (await unwrap(s.client.GET('/v1/recurring', { params: { query: { customerId, limit: 100 } } }))).schedules;
  }, [s.client, bank, customerId, entityId]);
  return (
    <section aria-labelledby="decision-schedules-h">
      <h2 id="decision-schedules-h">Schedules</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Schedules under this decision"
          rows={list.data}
          rowKey={(r) => r.scheduleId}
          empty="No recurring schedules under this decision."
          columns={[
            {
              header: 'Schedule',
              cell: (r) =>
                bank ? (
                  <code>{r.scheduleId}</code>
                ) : (
                  <Link to={schedulePath(r.scheduleId)}>
                    <code>{r.scheduleId}</code>
                  </Link>
                ),
            },
            { header: 'Amount', cell: (r) => money(r.amount) },
            { header: 'Frequency', cell: (r) => r.frequency },
            { header: 'Status', cell: (r) => <span className={`badge ${r.status}`}>{r.status}</span> },
            { header: 'Next billing', cell: (r) => when(r.nextBillingDate) },
            { header: 'Billings', cell: (r) => r.totalBillings },
          ]}
        />
      )}
    </section>
  );
}
