import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, ShownOnce, Table, useLoad } from '../ui';

type Role = 'owner' | 'admin' | 'developer' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];

export function TeamPage() {
  const s = useSession();
  const list = useLoad(() => unwrap(s.client.GET('/v1/team/members', { params: { query: { limit: 100 } } })), [s.client]);
  const [token, setToken] = useState<string>();
  const canInvite = s.can('POST', '/v1/team/invitations');
  const canChange = s.can('PATCH', '/v1/team/members/{userId}');
  return (
    <Page title="Team">
      {canInvite && (
        <Form
          label="Invite a person"
          submit="Send invitation"
          onSubmit={async (f) => {
            const r = await unwrap(
              s.client.POST('/v1/team/invitations', {
                body: { email: String(f.get('email') ?? '').trim(), role: String(f.get('role')) as Role },
              }),
            );
            setToken(r.token);
          }}
        >
          <Field label="Their email" name="email" type="email" required />
          <Select label="Role" name="role" options={ROLES} defaultValue="developer" />
        </Form>
      )}
      {token && <ShownOnce label="Invitation token (they accept it after signing in)" value={token} />}
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Team members"
          rows={list.data.members}
          rowKey={(m) => m.userId}
          empty="No members."
          columns={[
            { header: 'Email', cell: (m) => m.email ?? m.userId },
            { header: 'Role', cell: (m) => m.role },
            { header: 'Joined', cell: (m) => when(m.joinedAt) },
            {
              header: 'Change',
              cell: (m) =>
                canChange ? (
                  <span className="row">
                    <RoleChange userId={m.userId} role={m.role} onDone={list.reload} />
                    <ActionButton
                      label="Remove"
                      danger
                      action={() => unwrap(s.client.DELETE('/v1/team/members/{userId}', { params: { path: { userId: m.userId } } }))}
                      onDone={list.reload}
                    />
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

function RoleChange({ userId, role, onDone }: { userId: string; role: Role; onDone(): void }) {
  const s = useSession();
  const [value, setValue] = useState<Role>(role);
  const [error, setError] = useState<Error>();
  return (
    <span className="row">
      <label className="inline">
        <span className="visually-hidden">Role</span>
        <select value={value} onChange={(e) => setValue(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <button
        type="button"
        onClick={() =>
          unwrap(s.client.PATCH('/v1/team/members/{userId}', { params: { path: { userId } }, body: { role: value } })).then(
            onDone,
            (e: Error) => setError(e),
          )
        }
      >
        Save role
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}
