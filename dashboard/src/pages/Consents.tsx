import { unwrap } from '../api';
import { money, when } from '../format';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Named, Page, Table, useLoad } from '../ui';
import { customerPath, decisionPath } from './Decisions';
import type { Schemas } from '../sdk-types';

type Consent = Schemas['CustomerConsent'];

const LIMITS = ['single', 'daily', 'weekly', 'monthly', 'yearly'] as const;

/** What is left of each limit that is set: `Daily ₦500.00 of ₦1,000.00 left`. */
function Left({ c }: { c: Consent }) {
  const parts = LIMITS.filter((p) => c.remaining[p] != null).map(
    (p) => `${p[0]!.toUpperCase()}${p.slice(1)} ${money(c.remaining[p])} of ${money(c.spendingLimits[p] ?? null)}`,
  );
  if (c.remaining.payments != null) parts.push(`${c.remaining.payments} of ${c.maxPayments} payments`);
  return parts.length ? <span>{parts.join('; ')} left</span> : <span>No limits</span>;
}

/** Find a customer's consents by id (from the Customers page). */
export function FindCustomer() {
  return (
    <Form
      label="Find a customer's consents"
      submit="Show consents"
      onSubmit={async (f) => {
        const id = String(f.get('customerId') ?? '').trim();
        if (id) navigate(customerPath(id));
      }}
    >
      <Field label="Customer id" name="customerId" required />
    </Form>
  );
}

/**
 * `/dashboard/customers/<id>` (bank): every standing consent of the customer across merchants
 * (`GET /v1/bank/customers/{customerId}/consents`): what each merchant may still take, its
 * schedules, and the revoke (the decision changed to deny, as on the decision's page).
 */
export function CustomerPage({ id }: { id: string }) {
  const s = useSession();
  const list = useLoad(
    () => unwrap(s.client.GET('/v1/bank/customers/{customerId}/consents', { params: { path: { customerId: id }, query: { limit: 100 } } })),
    [s.client, id],
  );
  const canRevoke = s.can('PUT', '/v1/bank/customer-decisions/{id}');
  return (
    <Page title={`Customer ${id}`}>
      <p>
        <Link to={`transactions?customerId=${encodeURIComponent(id)}`}>Transactions of this customer</Link>
      </p>
      <h2>Consents</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <>
          <Table
            caption="What each merchant may still take"
            rows={list.data.consents}
            rowKey={(c) => c.decisionId}
            empty="No merchant may bill this customer."
            columns={[
              { header: 'Merchant', cell: (c) => <Named name={c.merchant.name} id={c.merchant.id} /> },
              {
                header: 'Decision',
                cell: (c) => (
                  <Link to={decisionPath(c.decisionId)}>
                    <span className={`badge ${c.decision}`}>{c.decision.replace('_', ' ')}</span>
                  </Link>
                ),
              },
              { header: 'Left now', cell: (c) => <Left c={c} /> },
              {
                header: 'Valid',
                cell: (c) => (c.validFrom || c.validTo ? `${when(c.validFrom)} – ${when(c.validTo)}` : 'No dates set'),
              },
              {
                header: 'Schedules',
                cell: (c) =>
                  c.schedules.length ? c.schedules.map((x) => `${money(x.amount)} ${x.status}, next ${when(x.nextRunAt)}`).join('; ') : '—',
              },
              {
                header: 'Revoke',
                cell: (c) =>
                  canRevoke ? (
                    <ActionButton
                      label="Revoke"
                      accessibleName={`Revoke ${c.merchant.name ?? c.merchant.id}`}
                      danger
                      confirm={{
                        title: 'Revoke this consent?',
                        message: (
                          <p>{c.merchant.name ?? c.merchant.id} can no longer bill this customer; its schedules stop at their next run.</p>
                        ),
                      }}
                      action={() =>
                        unwrap(
                          s.client.PUT('/v1/bank/customer-decisions/{id}', {
                            params: { path: { id: c.decisionId } },
                            body: { customerDecision: 'deny' },
                          }),
                        )
                      }
                      onDone={list.reload}
                    />
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
          {list.data.hasMore && <p>Showing the newest 100 consents.</p>}
        </>
      )}
    </Page>
  );
}
