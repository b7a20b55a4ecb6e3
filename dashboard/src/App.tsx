import { useCallback, useState } from 'react';
import type { DashboardConfig } from './config';
import { readStored, SessionProvider, useSession, writeStored, type Stored } from './session';
import { SignInPage } from './pages/SignIn';
import { ApplicationPage } from './pages/Application';
import { Layout } from './Layout';

export function App({ config }: { config: DashboardConfig }) {
  const [stored, setStored] = useState<Stored | undefined>(readStored);
  const signIn = (s: Stored) => {
    writeStored(s);
    setStored(s);
  };
  const signOut = useCallback(() => {
    writeStored(undefined);
    sessionStorage.clear();
    setStored(undefined);
  }, []);
  if (!stored) return <SignInPage config={config} onSignedIn={signIn} />;
  return (
    <SessionProvider config={config} stored={stored} onSignOut={signOut}>
      <Signed />
    </SessionProvider>
  );
}

function Signed() {
  const s = useSession();
  // A signed-in person who belongs to no participant yet: apply (or follow their application).
  if (!s.acting) return <ApplicationPage />;
  return <Layout />;
}
