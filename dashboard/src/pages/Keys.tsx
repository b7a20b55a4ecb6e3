import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Named, Page, Select, ShownOnce, Table, useLoad } from '../ui';
import { KEY_ROLES, outranks, type KeyRole, type Role } from '../../../functions/identity/roles';

/** How long a new key lives (`expiresInDays`; empty: until revoked). */
const EXPIRIES: [string, string][] = [
  ['', 'Never (until revoked)'],
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
];

export function KeysPage() {
  const s = useSession();
  const keys = useLoad(() => unwrap(s.client.GET('/v1/keys', { params: { query: { limit: 100 } } })), [s.client]);
  const [created, setCreated] = useState<string>();
  const canCreate = s.can('POST', '/v1/keys');
  const canRevoke = s.can('DELETE', '/v1/keys/{keyId}');
  // A key's role is at most its creator's (api-keys.md); an owner's keys are at most admin.
  const mine = (s.current?.role ?? 'viewer') as Role;
  const roles = KEY_ROLES.filter((r) => !outranks(r, mine));
  return (
    <Page title="API keys">
      {canCreate && (
        <Form
          label="New API key"
          submit="Create key"
          onSubmit={async (f) => {
            const name = String(f.get('name') ?? '').trim();
            const days = Number(f.get('expiresInDays') || 0);
            const role = String(f.get('role')) as KeyRole;
            const r = await unwrap(
              s.client.POST('/v1/keys', { body: { ...(name ? { name } : {}), role, ...(days ? { expiresInDays: days } : {}) } }),
            );
            setCreated(r.apiKey);
            keys.reload();
          }}
        >
          <Field label="Key name" name="name" placeholder="e.g. checkout server" />
          <Select label="Role" name="role" options={roles} defaultValue={roles[0]} />
          <Select label="Expires in" name="expiresInDays" options={EXPIRIES} defaultValue="" />
        </Form>
      )}
      {created && <ShownOnce label="Your new API key" value={created} />}
      {keys.loading && <Loading />}
      <ErrorMessage error={keys.error} />
      {keys.data && (
        <Table
          caption="API keys"
          rows={keys.data.keys}
          rowKey={(k) => k.keyId}
          empty="No API keys yet. Create one to call the API."
          columns={[
            { header: 'Name', cell: (k) => k.name ?? '—' },
            { header: 'Key', cell: (k) => <code>{k.prefix}…</code> },
            { header: 'Role', cell: (k) => k.role },
            {
              header: 'Created by',
              cell: (k) => (k.createdBy ? <Named email={k.createdBy.email} id={k.createdBy.userId} /> : 'idpay operator or provider'),
            },
            { header: 'Created', cell: (k) => when(k.createdAt) },
            { header: 'Last used', cell: (k) => when(k.lastUsedAt) },
            { header: 'Expires', cell: (k) => when(k.expiresAt) },
            {
              header: 'Status',
              cell: (k) =>
                k.revokedAt ? (
                  `Revoked ${when(k.revokedAt)}`
                ) : canRevoke ? (
                  <ActionButton
                    label="Revoke"
                    danger
                    confirm={{
                      title: 'Revoke this key?',
                      message: <p>Every call made with {k.name ?? k.keyId} is refused from now on.</p>,
                    }}
                    action={() => unwrap(s.client.DELETE('/v1/keys/{keyId}', { params: { path: { keyId: k.keyId } } }))}
                    onDone={keys.reload}
                  />
                ) : (
                  'Active'
                ),
            },
          ]}
        />
      )}
    </Page>
  );
}
