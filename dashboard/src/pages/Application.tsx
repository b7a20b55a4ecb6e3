import { useState } from 'react';
import { unwrap } from '../api';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Field, Form, Page, Select, useLoad } from '../ui';

const STORE = 'idpay.applications';
type Saved = Record<string, string>; // e-mail -> applicationId

const saved = (): Saved => JSON.parse(localStorage.getItem(STORE) ?? '{}') as Saved;

/**
 * A signed-in person who belongs to no participant yet: apply as a merchant or a provider
 * (sandbox: approved at once), or follow the application already sent (live: the operator decides).
 */
export function ApplicationPage() {
  const s = useSession();
  const email = s.stored.type === 'person' ? s.stored.email : '';
  const [applicationId, setApplicationId] = useState<string | undefined>(() => saved()[email]);
  const status = useLoad(
    async () =>
      applicationId ? unwrap(s.client.GET('/v1/onboarding/applications/{id}', { params: { path: { id: applicationId } } })) : undefined,
    [applicationId],
  );

  const signOut = (
    <button type="button" className="secondary" onClick={() => void s.signOut()}>
      Sign out
    </button>
  );

  if (applicationId) {
    const app = status.data;
    return (
      <main className="signin">
        <Page title="Application status" actions={signOut}>
          <ErrorMessage error={status.error} />
          {app && (
            <dl className="facts">
              <dt>Business</dt>
              <dd>{app.businessName}</dd>
              <dt>Status</dt>
              <dd data-testid="application-status">{app.status}</dd>
              {app.reason && (
                <>
                  <dt>Reason</dt>
                  <dd>{app.reason}</dd>
                </>
              )}
            </dl>
          )}
          {app?.status === 'approved' ? (
            <button type="button" onClick={() => void s.reload()}>
              Open the dashboard
            </button>
          ) : (
            <ActionButton label="Check again" action={async () => status.reload()} />
          )}
          {app?.status === 'rejected' && (
            <button type="button" className="secondary" onClick={() => setApplicationId(undefined)}>
              Apply again
            </button>
          )}
        </Page>
      </main>
    );
  }

  return (
    <main className="signin">
      <Page title="Apply to idpay" actions={signOut}>
        <p>
          Tell us about your business.{' '}
          {s.config.stage === 'sandbox' ? 'Sandbox applications are approved at once.' : 'Our team reviews live applications.'}
        </p>
        <Form
          label="Application"
          submit="Send application"
          onSubmit={async (f) => {
            const website = String(f.get('website') ?? '').trim();
            const created = await unwrap(
              s.client.POST('/v1/onboarding/applications', {
                body: {
                  type: String(f.get('type')) as 'merchant' | 'provider',
                  businessName: String(f.get('businessName')),
                  email: String(f.get('email')),
                  country: String(f.get('country')),
                  registrationNumber: String(f.get('registrationNumber')),
                  ...(website ? { website } : {}),
                  address: { line1: String(f.get('line1')), city: String(f.get('city')), country: String(f.get('country')) },
                },
              }),
            );
            localStorage.setItem(STORE, JSON.stringify({ ...saved(), [email]: created.applicationId }));
            setApplicationId(created.applicationId);
          }}
        >
          <Select
            label="Business type"
            name="type"
            options={[
              ['merchant', 'Merchant'],
              ['provider', 'Payment provider'],
            ]}
          />
          <Field label="Business name" name="businessName" required />
          <Field label="Business email" name="email" type="email" required defaultValue={email} />
          <Field label="Registration number" name="registrationNumber" required />
          <Field label="Website" name="website" type="url" placeholder="https://" />
          <Field label="Address" name="line1" required />
          <Field label="City" name="city" required />
          <Field label="Country code" name="country" required defaultValue="NG" />
        </Form>
      </Page>
    </main>
  );
}
