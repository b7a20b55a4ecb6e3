import { useState } from 'react';
import { unwrap } from '../api';
import { useSession } from '../session';
import { Field, Form, Page, Select, ShownOnce } from '../ui';
import { invitationLink } from './Invitation';

/** The operator creates participants (banks only this way), optionally inviting a first owner. */
export function ParticipantsPage() {
  const s = useSession();
  const [created, setCreated] = useState<{ id: string; name: string; apiKey: string; token?: string; ownerEmail?: string }>();
  return (
    <Page title="Participants">
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
        }}
      >
        <Select
          label="Participant type"
          name="type"
          options={[
            ['bank', 'Bank'],
            ['merchant', 'Merchant'],
            ['provider', 'Payment provider'],
          ]}
        />
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
