import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { usePagedList } from '../paged';
import { useSession } from '../session';
import { ErrorMessage, Field, Form, Loading, Named, Page, Select, ShownOnce, Table } from '../ui';
import { invitationLink } from './Invitation';

const STATUSES: [string, string][] = [
  ['active', 'Active (a key works)'],
  ['inactive', 'Inactive (no working key)'],
];

const TYPES: [string, string][] = [
  ['bank', 'Bank'],
  ['merchant', 'Merchant'],
  ['provider', 'Payment provider'],
];

/**
 * The operator's participants (DESIGN 10.7): every one, newest first, paged, filtered by type
 * and status (active while one of its API keys works) and searched by name, e-mail or id (the filters in the URL; the header's Search lands here),
 * beside the form that creates one (banks only this way), optionally inviting a first owner.
 */
export function ParticipantsPage() {
  const s = useSession();
  const paged = usePagedList({
    filters: ['type', 'status', 'q'] as const,
    deps: [s.client],
    load: async (f, paging) => {
      const query = {
        ...paging,
        ...(f.type ? { type: f.type as 'bank' | 'merchant' | 'provider' } : {}),
        ...(f.status ? { status: f.status as 'active' | 'inactive' } : {}),
        ...(f.q ? { q: f.q } : {}),
      };
      const r = await unwrap(s.client.GET('/v1/operator/participants', { params: { query } }));
      return { items: r.participants, hasMore: r.hasMore };
    },
    cursorOf: (p) => p.id,
  });
  const [created, setCreated] = useState<{ id: string; name: string; apiKey: string; token?: string; ownerEmail?: string }>();
  return (
    <Page title="Participants">
      <Form
        label="Find participants"
        submit="Apply filters"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '').trim() || undefined;
          paged.setFilters({ type: v('type'), status: v('status'), q: v('q') });
          return false;
        }}
      >
        <div className="row filters" key={paged.formKey}>
          <Select label="Type" name="type" options={[['', 'Every type'], ...TYPES]} defaultValue={paged.filters.type ?? ''} />
          <Select label="Status" name="status" options={[['', 'Every status'], ...STATUSES]} defaultValue={paged.filters.status ?? ''} />
          <Field label="Name, e-mail or id" name="q" defaultValue={paged.filters.q} />
        </div>
      </Form>
      {paged.list.loading && <Loading />}
      <ErrorMessage error={paged.list.error} />
      {paged.ready && (
        <Table
          caption={`Participants, page ${paged.page}`}
          rows={paged.rows}
          rowKey={(p) => p.id}
          empty="No participant matches."
          columns={[
            { header: 'Participant', cell: (p) => <Named name={p.name} email={p.email} id={p.id} /> },
            { header: 'Type', cell: (p) => p.type },
            { header: 'Status', cell: (p) => p.status },
            { header: 'Provider', cell: (p) => (p.providerId ? <code>{p.providerId}</code> : '—') },
            { header: 'Created', cell: (p) => when(p.createdAt) },
          ]}
        />
      )}
      {paged.pager}
      <h2>New participant</h2>
      <Form
        label="New participant"
        submit="Create participant"
        onSubmit={async (f) => {
          const v = (k: string) => String(f.get(k) ?? '').trim();
          const ownerEmail = v('ownerEmail');
          const r = await unwrap(
            s.client.POST('/v1/operator/participants', {
              body: {
                type: v('type') as 'bank' | 'merchant' | 'provider',
                name: v('name'),
                email: v('email'),
                ...(ownerEmail ? { ownerEmail } : {}),
              },
            }),
          );
          setCreated({ id: r.id, name: r.name, apiKey: r.apiKey, token: r.invitation?.token, ownerEmail });
          paged.list.reload();
        }}
      >
        <Select label="Participant type" name="type" options={TYPES} />
        <Field label="Name" name="name" required />
        <Field label="Contact email" name="email" type="email" required />
        <Field label="Owner email" name="ownerEmail" type="email" hint="The person invited as its first owner." />
      </Form>
      {created && (
        <>
          <p role="status" className="notice">
            Created {created.name} ({created.id}).
          </p>
          <ShownOnce label="Its API key" value={created.apiKey} />
          {created.token && (
            <>
              <p className="notice">The owner's invitation is e-mailed to them; its link, to send another way if needed:</p>
              <ShownOnce label="The owner's invitation link" value={invitationLink(created.token, created.ownerEmail!)} />
            </>
          )}
        </>
      )}
    </Page>
  );
}
