import type { DashboardConfig } from './config';
import { useStored, type Stored } from './auth';
import { usePath } from './router';
import { SessionProvider, useSession } from './session';
import { SignInPage } from './pages/SignIn';
import { ApplicationPage } from './pages/Application';
import { InvitationPage } from './pages/Invitation';
import { Layout } from './Layout';

/** One session per person (or the operator): a different sign-in in another tab starts afresh. */
const whoOf = (s: Stored) => (s.type === 'person' ? `person:${s.email}` : 'operator');

/**
 * Not signed in: the sign-in form at whatever address was opened, so that signing in (again)
 * shows that page. Signed in: an invitation link, the application of a person who belongs to
 * no participant yet, or the dashboard.
 */
export function App({ config }: { config: DashboardConfig }) {
  const stored = useStored();
  const path = usePath();
  const invitation = /^invitations\/([^/]+)$/.exec(path)?.[1];
  if (!stored) return <SignInPage config={config} invitation={invitation !== undefined} />;
  return (
    <SessionProvider key={whoOf(stored)} config={config} stored={stored}>
      <Signed invitation={invitation && decodeURIComponent(invitation)} />
    </SessionProvider>
  );
}

function Signed({ invitation }: { invitation?: string }) {
  const s = useSession();
  if (invitation) return <InvitationPage token={invitation} />;
  if (!s.acting) return <ApplicationPage />;
  return <Layout />;
}
