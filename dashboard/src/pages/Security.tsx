import { useState } from 'react';
import { encode } from 'uqr';
import { accessToken } from '../auth';
import { associateTotp, CognitoError, disableTotp, enableTotp } from '../cognito';
import { useSession } from '../session';
import { ActionButton, CodeField, Field, Form, Page } from '../ui';
import { codeProblem, passwordProblem } from '../validate';

/**
 * The person's sign-in security (DESIGN 9.7): an authenticator app (Cognito software-token
 * MFA) set up with a QR code or its key, checked with one code before it is turned on. Live
 * owners and admins must have it (pool.ts `mfaRequiredRoles`): until then this is the only
 * page they see, and they cannot turn it off.
 */
export function SecurityPage() {
  const s = useSession();
  const mfa = s.mfa!;
  const [secret, setSecret] = useState<string>();
  const stage = s.config.stage === 'live' ? 'Live' : 'Sandbox';
  const token = () => accessToken(s.config);
  return (
    <Page title="Security">
      <h2>Authenticator app</h2>
      {mfa.required && !mfa.enabled && (
        <p role="alert" className="notice">
          Owners and admins sign in to the live dashboard with a code from an authenticator app. Set one up to continue.
        </p>
      )}
      <p data-testid="mfa-status">
        {mfa.enabled
          ? 'On: signing in asks for the 6-digit code your authenticator app shows.'
          : 'Off: signing in asks for your password only.'}
      </p>
      {!mfa.enabled && !secret && (
        <ActionButton label="Set up authenticator app" action={async () => setSecret(await associateTotp(s.config, await token()))} />
      )}
      {!mfa.enabled && secret && (
        <>
          <p>Scan this code with your authenticator app (Google Authenticator, 1Password, Authy…), or type the key below into it.</p>
          <QrCode
            text={`otpauth://totp/${encodeURIComponent(`idpay ${stage}:${s.email}`)}?secret=${secret}&issuer=${encodeURIComponent(`idpay ${stage}`)}`}
          />
          <p>
            Key: <code data-testid="totp-secret">{secret}</code>
          </p>
          <Form
            label="Verify authenticator app"
            submit="Turn on"
            onSubmit={async (f) => {
              const code = String(f.get('code') ?? '').trim();
              const problem = codeProblem(code);
              if (problem) throw new Error(problem);
              await enableTotp(s.config, await token(), code, String(f.get('device') ?? '').trim() || 'Authenticator app');
              setSecret(undefined);
              await s.reloadMfa();
            }}
          >
            <CodeField label="Code from the app" />
            <Field label="Device name" name="device" defaultValue="Authenticator app" />
          </Form>
        </>
      )}
      {mfa.enabled && !mfa.required && (
        <ActionButton
          label="Turn off"
          danger
          confirm={{
            title: 'Turn off two-factor authentication?',
            message: (
              <p>
                Signing in will ask for your password only. To turn it off, prove it is you: your password and a current code from the app.
              </p>
            ),
            fields: (
              <>
                <Field label="Password" name="password" type="password" autoComplete="current-password" />
                <CodeField label="Code from the app" />
              </>
            ),
            run: async (f) => {
              const code = String(f.get('code') ?? '').trim();
              const password = String(f.get('password') ?? '');
              const problem = passwordProblem(password) ?? codeProblem(code);
              if (problem) throw new Error(problem);
              await disableTotp(s.config, s.email!, password, code).catch((e: Error) => {
                throw e instanceof CognitoError && /NotAuthorized|InvalidPassword|CodeMismatch/.test(e.code)
                  ? new Error('The password or the code is not right. Try again with the next code.')
                  : e;
              });
            },
          }}
          action={() => s.reloadMfa()}
        />
      )}
      {mfa.enabled && mfa.required && <p>Your role requires it in this stage: it stays on.</p>}
    </Page>
  );
}

/** The QR code of `text`, drawn as SVG (one path; nothing leaves the browser). */
function QrCode({ text }: { text: string }) {
  const qr = encode(text, { border: 2, ecc: 'M' });
  const d = qr.data.flatMap((row, y) => row.map((dark, x) => (dark ? `M${x} ${y}h1v1h-1z` : ''))).join('');
  return (
    <svg
      className="qr"
      role="img"
      aria-label="QR code for your authenticator app"
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      width="200"
      height="200"
      shapeRendering="crispEdges"
    >
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
