import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Loading, Page, Select, ShownOnce, Table, useConfirm, useLoad } from '../ui';
import { invitationLink } from './Invitation';

type Role = 'owner' | 'admin' | 'developer' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];

/** The roles `giver` may give (only an owner grants, changes or removes the owner role: team-and-invitations.md). */
export const rolesGivenBy = (giver: Role | undefined): Role[] => (giver === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner'));

export function TeamPage() {
  const s = useSession();
  const list = useLoad(() => unwrap(s.client.GET('/v1/team/members', { params: { query: { limit: 100 } } })), [s.client]);
  const [sent, setSent] = useState<{ email: string; token: string }>();
  const [invitationsVersion, setInvitationsVersion] = useState(0);
  const canInvite = s.can('POST', '/v1/team/invitations');
  const canChange = s.can('PATCH', '/v1/team/members/{userId}');
  const myRole = s.current?.role as Role | undefined;
  const giving = rolesGivenBy(myRole);
  const owners = list.data?.members.filter((m) => m.role === 'owner').length ?? 0;
  /** A member's row offers changes only when the viewer may make them: an owner's only to an owner, and never to the last owner. */
  const changeable = (m: { role: Role }) => canChange && (m.role !== 'owner' || (myRole === 'owner' && owners > 1));
  return (
    <Page title="Team">
      {canInvite && (
        <Form
          label="Invite a person"
          submit="Send invitation"
          onSubmit={async (f) => {
            const email = String(f.get('email') ?? '').trim();
            const r = await unwrap(s.client.POST('/v1/team/invitations', { body: { email, role: String(f.get('role')) as Role } }));
            setSent({ email, token: r.token });
            setInvitationsVersion((v) => v + 1);
          }}
        >
          <Field label="Their email" name="email" type="email" required />
          <Select label="Role" name="role" options={giving} defaultValue="developer" />
        </Form>
      )}
      {sent && (
        <>
          <p role="status" className="notice">
            Invitation e-mailed to {sent.email}: its link opens the invitation, valid for 7 days.
          </p>
          <ShownOnce label="The invitation's link (to send another way)" value={invitationLink(sent.token, sent.email)} />
        </>
      )}
      {canInvite && <Invitations version={invitationsVersion} />}
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
                changeable(m) ? (
                  <span className="row">
                    <RoleChange userId={m.userId} email={m.email ?? m.userId} role={m.role} roles={giving} onDone={list.reload} />
                    <ActionButton
                      label="Remove"
                      accessibleName={`Remove ${m.email ?? m.userId}`}
                      danger
                      confirm={{
                        title: 'Remove this member?',
                        message: <p>{m.email} loses access now. Keys they made keep working until you revoke them.</p>,
                      }}
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

function RoleChange({ userId, email, role, roles, onDone }: { userId: string; email: string; role: Role; roles: Role[]; onDone(): void }) {
  const s = useSession();
  const [value, setValue] = useState<Role>(role);
  const [error, setError] = useState<Error>();
  const question = useConfirm();
  return (
    <span className="row">
      {question.dialog}
      <label className="inline">
        <span className="visually-hidden">Role</span>
        <select value={value} onChange={(e) => setValue(e.target.value as Role)}>
          {roles.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <button
        type="button"
        disabled={value === role}
        onClick={async () => {
          const yes = await question.ask({
            title: 'Change this role?',
            message: (
              <p>
                {email} becomes {value} (now {role}): what they may see and do changes at once.
              </p>
            ),
          });
          if (!yes) return;
          setError(undefined);
          await unwrap(s.client.PATCH('/v1/team/members/{userId}', { params: { path: { userId } }, body: { role: value } })).then(
            onDone,
            (e: Error) => setError(e),
          );
        }}
      >
        Save role
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}

/** Invitations not accepted yet; each can be withdrawn. */
function Invitations({ version }: { version: number }) {
  const s = useSession();
  // API: release 3 sign-out/invitations
  const api = s.client;
  const list = useLoad(() => unwrap(api.GET('/v1/team/invitations', { params: { query: { limit: 100 } } })), [s.client, version]);
  return (
    <section aria-labelledby="invitations-h">
      <h2 id="invitations-h">Pending invitations</h2>
      {list.loading && <Loading />}
      <ErrorMessage error={list.error} />
      {list.data && (
        <Table
          caption="Pending invitations"
          rows={list.data.invitations}
          rowKey={(i) => i.invitationId}
          empty="No pending invitations."
          columns={[
            { header: 'Email', cell: (i) => i.email },
            { header: 'Role', cell: (i) => i.role },
            { header: 'Invited by', cell: (i) => i.invitedBy?.email ?? '—' },
            { header: 'Sent', cell: (i) => when(i.createdAt) },
            { header: 'Expires', cell: (i) => when(i.expiresAt) },
            {
              header: 'Withdraw',
              cell: (i) => (
                <ActionButton
                  label="Withdraw"
                  accessibleName={`Withdraw the invitation of ${i.email}`}
                  danger
                  confirm={{
                    title: 'Withdraw this invitation?',
                    message: <p>The link sent to {i.email} stops working; you can invite them again later.</p>,
                  }}
                  action={() =>
                    unwrap(api.DELETE('/v1/team/invitations/{invitationId}', { params: { path: { invitationId: i.invitationId } } }))
                  }
                  onDone={list.reload}
                />
              ),
            },
          ]}
        />
      )}
    </section>
  );
}
