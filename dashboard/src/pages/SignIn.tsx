import { useEffect, useRef, useState, type FormEvent, type MouseEvent, type ReactNode } from 'react';
import { clientFor, unwrap } from '../api';
import { endNotice, startSession } from '../auth';
import {
  answerMfa,
  CognitoError,
  confirmForgotPassword,
  confirmSignUp,
  forgotPassword,
  resendCode,
  signIn,
  signUp,
  type MfaChallenge,
  type SignInStep,
} from '../cognito';
import type { DashboardConfig } from '../config';
import { CodeField, Field, useTitle } from '../ui';
import { codeProblem, emailProblem, newPasswordProblem, PASSWORD_RULES, passwordProblem } from '../validate';

type Step =
  | { kind: 'signin'; email?: string }
  | { kind: 'confirm'; email: string; password?: string }
  | { kind: 'forgot'; email?: string }
  | { kind: 'reset'; email: string }
  | { kind: 'mfa'; email: string; challenge: MfaChallenge };

const TITLES: Record<Step['kind'], string> = {
  signin: 'Sign in',
  confirm: 'Confirm your e-mail',
  forgot: 'Reset your password',
  reset: 'Choose a new password',
  mfa: 'Two-step verification',
};

type Problems = Record<string, string | undefined>;

const WRONG_CREDENTIALS = 'Incorrect e-mail address or password.';
/** Cognito's refusals of an e-mail and password (the emulator's codes included). */
const SIGN_IN_REFUSALS = new Set(['NotAuthorizedException', 'UserNotFoundException', 'InvalidPasswordException']);

/** `#email=<address>` of an invitation link. */
const emailInFragment = () => new URLSearchParams(window.location.hash.slice(1)).get('email') ?? undefined;

/**
 * Getting in (DESIGN 8.4, 9.7), every step through Cognito (the emulator locally): sign in
 * (with the authenticator app's code when the person set one up), create an account and
 * confirm it with the e-mailed code (`Resend code`), reset a forgotten password. Each form
 * checks its fields before it sends and shows Cognito's own reason otherwise. The URL is left
 * as it is, so a person sent here from a page (an ended session, an invitation link) lands
 * back on it. The operator signs in with the operator key, checked by the API first.
 */
export function SignInPage({ config, invitation }: { config: DashboardConfig; invitation?: boolean }) {
  // An invitation link carries the invited address in its fragment (never sent to a server).
  const [step, setStep] = useState<Step>(() => ({ kind: 'signin', email: emailInFragment() }));
  const form = useRef<HTMLFormElement>(null);
  /** The e-mail typed into the form on screen (carried to the next step). */
  const typedEmail = () => (form.current ? String(new FormData(form.current).get('email') ?? '').trim() || undefined : undefined);
  const [notice, setNotice] = useState<string | undefined>(endNotice);
  const [error, setError] = useState<string>();
  const [problems, setProblems] = useState<Problems>({});
  const [busy, setBusy] = useState(false);

  const go = (next: Step, message?: string) => {
    setStep(next);
    setError(undefined);
    setProblems({});
    setNotice(message);
  };

  /** Runs a Cognito step: its error (Cognito's message) is shown. */
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

  /** The form's fields, or undefined after marking the ones refused (focus on the first). */
  const checked = (form: HTMLFormElement, rules: Record<string, (v: string) => string | undefined>) => {
    const data = new FormData(form);
    const values: Record<string, string> = {};
    const found: Problems = {};
    for (const [name, rule] of Object.entries(rules)) {
      const raw = String(data.get(name) ?? '');
      values[name] = name === 'password' ? raw : raw.trim();
      found[name] = rule(values[name]!);
    }
    setProblems(found);
    const first = Object.keys(rules).find((n) => found[n]);
    if (!first) return values;
    (form.elements.namedItem(first) as HTMLInputElement | null)?.focus();
    return undefined;
  };

  const finish = (email: string, r: SignInStep) => {
    if ('tokens' in r) startSession({ type: 'person', email, tokens: r.tokens });
    else go({ kind: 'mfa', email, challenge: r.challenge });
  };

  const signInWith = async (email: string, password: string) => {
    try {
      finish(email, await signIn(config, email, password));
    } catch (e) {
      // The same answer for an unknown address and a wrong password (DESIGN 10.7; Cognito's
      // PreventUserExistenceErrors on AWS): nobody learns from this form who has an account.
      if (e instanceof CognitoError && SIGN_IN_REFUSALS.has(e.code)) throw new CognitoError(e.code, WRONG_CREDENTIALS);
      if (e instanceof CognitoError && e.code === 'UserNotConfirmedException') {
        go(
          { kind: 'confirm', email, password },
          `Your e-mail address is not confirmed yet. Enter the code we e-mailed to ${email}, or send a new one.`,
        );
        return;
      }
      throw e;
    }
  };

  const submitSignIn = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const create = ((e.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null)?.value === 'create';
    const v = checked(e.currentTarget, { email: emailProblem, password: create ? newPasswordProblem : passwordProblem });
    if (!v) return;
    const email = v.email!.toLowerCase();
    void run(async () => {
      if (!create) return signInWith(email, v.password!);
      await signUp(config, email, v.password!);
      go({ kind: 'confirm', email, password: v.password }, `We e-mailed a confirmation code to ${email}.`);
    });
  };

  const submitConfirm = (e: FormEvent<HTMLFormElement>, s: Extract<Step, { kind: 'confirm' }>) => {
    e.preventDefault();
    const v = checked(e.currentTarget, { code: codeProblem });
    if (!v) return;
    void run(async () => {
      await confirmSignUp(config, s.email, v.code!);
      if (s.password) await signInWith(s.email, s.password);
      else go({ kind: 'signin', email: s.email }, 'Your e-mail address is confirmed. Sign in.');
    });
  };

  const submitForgot = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const v = checked(e.currentTarget, { email: emailProblem });
    if (!v) return;
    const email = v.email!.toLowerCase();
    void run(async () => {
      await forgotPassword(config, email);
      go({ kind: 'reset', email }, `We e-mailed a code to ${email}. Enter it with your new password.`);
    });
  };

  const submitReset = (e: FormEvent<HTMLFormElement>, s: Extract<Step, { kind: 'reset' }>) => {
    e.preventDefault();
    const v = checked(e.currentTarget, { code: codeProblem, password: newPasswordProblem });
    if (!v) return;
    void run(async () => {
      await confirmForgotPassword(config, s.email, v.code!, v.password!);
      setNotice('Your password is changed.');
      await signInWith(s.email, v.password!);
    });
  };

  const submitMfa = (e: FormEvent<HTMLFormElement>, s: Extract<Step, { kind: 'mfa' }>) => {
    e.preventDefault();
    const v = checked(e.currentTarget, { code: codeProblem });
    if (!v) return;
    void run(async () => {
      try {
        finish(s.email, await answerMfa(config, s.challenge, v.code!, s.email));
      } catch (err) {
        // The challenge lives a few minutes: an expired one starts the sign-in again.
        if (err instanceof CognitoError && err.code === 'NotAuthorizedException') go({ kind: 'signin', email: s.email });
        throw err;
      }
    });
  };

  const link = (label: string, next: Step | (() => Step), message?: string) => (
    <a
      href={`#${typeof next === 'function' ? 'forgot' : next.kind}`}
      onClick={(e: MouseEvent) => {
        e.preventDefault();
        go(typeof next === 'function' ? next() : next, message);
      }}
    >
      {label}
    </a>
  );

  /** A button that sends the code again (Cognito), then says so. */
  const again = (label: string, send: () => Promise<unknown>, message: string) => (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={() =>
        void run(async () => {
          await send();
          setNotice(message);
        })
      }
    >
      {label}
    </button>
  );

  let body: ReactNode;
  if (step.kind === 'signin')
    body = (
      <form aria-label="Sign in" noValidate onSubmit={submitSignIn} className="form" ref={form}>
        <Field label="Email" name="email" type="email" autoComplete="username" defaultValue={step.email} error={problems.email} />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          hint={`New accounts: ${PASSWORD_RULES}`}
          error={problems.password}
        />
        <div className="row">
          <button type="submit" value="signin" disabled={busy}>
            Sign in
          </button>
          <button type="submit" value="create" className="secondary" disabled={busy}>
            Create account
          </button>
        </div>
        <p>{link('Forgot password?', () => ({ kind: 'forgot', email: typedEmail() }))}</p>
      </form>
    );
  else if (step.kind === 'confirm')
    body = (
      <form aria-label="Confirm your e-mail" noValidate onSubmit={(e) => submitConfirm(e, step)} className="form">
        <CodeField label="Confirmation code" hint={`The 6-digit code e-mailed to ${step.email}.`} error={problems.code} />
        <div className="row">
          <button type="submit" disabled={busy}>
            Confirm
          </button>
          {again(
            'Resend code',
            () => resendCode(config, step.email),
            `We e-mailed a new code to ${step.email}. Only the newest code works.`,
          )}
        </div>
        <p>{link('Back to sign in', { kind: 'signin', email: step.email })}</p>
      </form>
    );
  else if (step.kind === 'forgot')
    body = (
      <form aria-label="Reset your password" noValidate onSubmit={submitForgot} className="form">
        <p>We will e-mail you a code to choose a new password.</p>
        <Field label="Email" name="email" type="email" autoComplete="username" defaultValue={step.email} error={problems.email} />
        <button type="submit" disabled={busy}>
          Send code
        </button>
        <p>{link('Back to sign in', { kind: 'signin', email: step.email })}</p>
      </form>
    );
  else if (step.kind === 'reset')
    body = (
      <form aria-label="Choose a new password" noValidate onSubmit={(e) => submitReset(e, step)} className="form">
        <CodeField label="Code" hint={`The 6-digit code e-mailed to ${step.email}.`} error={problems.code} />
        <Field
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          hint={PASSWORD_RULES}
          error={problems.password}
        />
        <div className="row">
          <button type="submit" disabled={busy}>
            Set new password
          </button>
          {again('Send a new code', () => forgotPassword(config, step.email), `We e-mailed a new code to ${step.email}.`)}
        </div>
        <p>{link('Back to sign in', { kind: 'signin', email: step.email })}</p>
      </form>
    );
  else
    body = (
      <form aria-label="Two-step verification" noValidate onSubmit={(e) => submitMfa(e, step)} className="form">
        <p>Enter the 6-digit code your authenticator app shows for idpay.</p>
        <Field
          label="Authentication code"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          error={problems.code}
        />
        <button type="submit" disabled={busy}>
          Verify
        </button>
        <p>{link('Back to sign in', { kind: 'signin', email: step.email })}</p>
      </form>
    );

  return (
    <main className="signin">
      <p className="brand">
        idpay dashboard <span className={`stage ${config.stage}`}>{config.stage === 'live' ? 'Live' : 'Sandbox'}</span>
      </p>
      {/* A new step is a new form (key): no field keeps what was typed into another. */}
      <StepHeading key={step.kind} title={TITLES[step.kind]} />
      {invitation && step.kind === 'signin' && (
        <p className="notice">
          You opened an invitation link. Sign in, or create an account, with the e-mail address it was sent to: the invitation opens next
          (or we tell you if it was withdrawn or has expired).
        </p>
      )}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <div key={`${step.kind}-form`}>{body}</div>
      {error && (
        <div role="alert" className="error">
          <p>{error}</p>
        </div>
      )}
      {step.kind === 'signin' && <OperatorSignIn />}
    </main>
  );
}

function StepHeading({ title }: { title: string }) {
  const heading = useTitle(title);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
  );
}

/** The operator key is checked with an operator read before the operator's pages open. */
function OperatorSignIn() {
  // `#operator` (the link below the sign-in form) opens the operator's form.
  const [open, setOpen] = useState(() => window.location.hash === '#operator');
  useEffect(() => {
    const on = () => setOpen(window.location.hash === '#operator');
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!open)
    return (
      <footer className="operator">
        <a href="#operator">Operator sign-in</a>
      </footer>
    );
  return (
    <section aria-labelledby="operator-h" className="operator">
      <h2 id="operator-h">Operator sign-in</h2>
      <form
        aria-label="Operator sign-in"
        className="form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const key = String(new FormData(e.currentTarget).get('key') ?? '').trim();
          setError(undefined);
          if (!key) return setError('Enter the operator key.');
          setBusy(true);
          try {
            await unwrap(clientFor(key).GET('/v1/operator/applications', { params: { query: { status: 'pending', limit: 1 } } }));
            startSession({ type: 'operator', key });
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field label="Operator key" name="key" type="password" autoComplete="off" />
        {error && (
          <div role="alert" className="error">
            <p>{error}</p>
          </div>
        )}
        <button type="submit" disabled={busy}>
          Sign in as operator
        </button>
      </form>
    </section>
  );
}
