import { useState, type FormEvent } from 'react';
import { CognitoError, confirmSignUp, signIn, signUp } from '../cognito';
import type { DashboardConfig } from '../config';
import type { Stored } from '../session';
import { Field } from '../ui';

/**
 * Sign in, or create an account (Cognito sign-up, then the code e-mailed to you: locally,
 * printed by `npm start`). The operator signs in with the operator key.
 */
export function SignInPage({ config, onSignedIn }: { config: DashboardConfig; onSignedIn(s: Stored): void }) {
  const [pending, setPending] = useState<{ email: string; password: string }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [operator, setOperator] = useState(false);

  const run = async (f: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
    } catch (e) {
      setError(e instanceof CognitoError ? e.message : (e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const submitter = (e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    void run(async () => {
      if (submitter?.value === 'create') {
        await signUp(config, email, password);
        setPending({ email, password });
        return;
      }
      onSignedIn({ type: 'person', email, tokens: await signIn(config, email, password) });
    });
  };

  const confirm = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    void run(async () => {
      await confirmSignUp(config, pending!.email, code);
      onSignedIn({ type: 'person', email: pending!.email, tokens: await signIn(config, pending!.email, pending!.password) });
    });
  };

  return (
    <main className="signin">
      <h1>idpay dashboard</h1>
      <p className="stage">{config.stage === 'live' ? 'Live' : 'Sandbox'}</p>
      {pending ? (
        <form aria-label="Confirm your e-mail" onSubmit={confirm} className="form">
          <p>We sent a confirmation code to {pending.email}.</p>
          <Field label="Confirmation code" name="code" required autoComplete="one-time-code" />
          <button type="submit" disabled={busy}>
            Confirm
          </button>
        </form>
      ) : (
        <form aria-label="Sign in" onSubmit={submit} className="form">
          <Field label="Email" name="email" type="email" required autoComplete="username" />
          <Field
            label="Password"
            name="password"
            type="password"
            required
            autoComplete="current-password"
            hint="At least 12 characters with upper and lower case, a digit and a symbol."
          />
          <div className="row">
            <button type="submit" value="signin" disabled={busy}>
              Sign in
            </button>
            <button type="submit" value="create" className="secondary" disabled={busy}>
              Create account
            </button>
          </div>
        </form>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <details open={operator} onToggle={(e) => setOperator((e.target as HTMLDetailsElement).open)}>
        <summary>Operator sign-in</summary>
        <form
          aria-label="Operator sign-in"
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            const key = String(new FormData(e.currentTarget).get('key') ?? '').trim();
            if (key) onSignedIn({ type: 'operator', key });
          }}
        >
          <Field label="Operator key" name="key" type="password" required autoComplete="off" />
          <button type="submit">Sign in as operator</button>
        </form>
      </details>
    </main>
  );
}
