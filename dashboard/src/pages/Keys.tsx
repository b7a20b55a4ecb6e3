import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, ShownOnce, Table, useLoad } from '../ui';

export function KeysPage() {
  const s = useSession();
  const keys = useLoad(() => unwrap(s.client.GET('/v1/keys', { params: { query: { limit: 100 } } })), [s.client]);
  const [created, setCreated] = useState<string>();
  const canCreate = s.can('POST', '/v1/keys');
  const canRevoke = s.can('DELETE', '/v1/keys/{keyId}');
  return (
    <Page title="API keys">
      {canCreate && (
        <Form
          label="New API key"
          submit="Create key"
          onSubmit={async (f) => {
            const name = String(f.get('name') ?? '').trim();
            const r = await unwrap(s.client.POST('/v1/keys', { body: name ? { name } : {} }));
            setCreated(r.apiKey);
            keys.reload();
          }}
        >
          <Field label="Key name" name="name" placeholder="e.g. checkout server" />
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
