/**
 * People's accounts through Amazon Cognito's user pool API (the emulator locally): the JSON
 * calls of the public dashboard client, with fetch, so no AWS SDK ships to the browser.
 * - New account: SignUp -> ConfirmSignUp (the e-mailed code; ResendConfirmationCode sends a new one).
 * - Forgotten password: ForgotPassword -> ConfirmForgotPassword (code + new password).
 * - Sign-in: InitiateAuth (USER_PASSWORD_AUTH) -> tokens, or an MFA challenge answered with
 *   RespondToAuthChallenge (SOFTWARE_TOKEN_MFA: the authenticator app's code).
 * - Signed in: REFRESH_TOKEN_AUTH renews the access token; GetUser, AssociateSoftwareToken,
 *   VerifySoftwareToken and SetUserMFAPreference set up TOTP; RevokeToken ends a session.
 * Errors carry Cognito's own code and message.
 */
import { cognitoUrl, type DashboardConfig } from './config';

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken?: string;
  /** Epoch ms at which the access token expires (its `exp`). */
  expiresAt: number;
}

export class CognitoError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(c: DashboardConfig, action: string, body: Record<string, unknown>): Promise<T> {
  let r: Response;
  try {
    r = await fetch(cognitoUrl(c), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}` },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CognitoError('NetworkError', 'The sign-in service could not be reached. Check your connection and try again.');
  }
  const json = (await r.json().catch(() => ({}))) as Record<string, unknown>;
  if (!r.ok) {
    const code = String(json.__type ?? json.code ?? 'Error')
      .split('#')
      .pop()!;
    throw new CognitoError(code, String(json.message ?? json.Message ?? `The sign-in service answered ${r.status}`));
  }
  return json as T;
}

/** The `exp` of a JWT in epoch ms (undefined when it cannot be read). */
export function expiryOf(jwt: string): number | undefined {
  try {
    const part = jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const exp = (JSON.parse(atob(part)) as { exp?: number }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export const signUp = (c: DashboardConfig, email: string, password: string) =>
  call<{ UserSub: string; UserConfirmed: boolean }>(c, 'SignUp', {
    ClientId: c.userPoolClientId,
    Username: email,
    Password: password,
    UserAttributes: [{ Name: 'email', Value: email }],
  });

export const confirmSignUp = (c: DashboardConfig, email: string, code: string) =>
  call(c, 'ConfirmSignUp', { ClientId: c.userPoolClientId, Username: email, ConfirmationCode: code });

export const resendCode = (c: DashboardConfig, email: string) =>
  call(c, 'ResendConfirmationCode', { ClientId: c.userPoolClientId, Username: email });

export const forgotPassword = (c: DashboardConfig, email: string) =>
  call(c, 'ForgotPassword', { ClientId: c.userPoolClientId, Username: email });

export const confirmForgotPassword = (c: DashboardConfig, email: string, code: string, password: string) =>
  call(c, 'ConfirmForgotPassword', { ClientId: c.userPoolClientId, Username: email, ConfirmationCode: code, Password: password });

interface AuthResult {
  AuthenticationResult?: { AccessToken: string; IdToken: string; RefreshToken?: string; ExpiresIn?: number };
  ChallengeName?: string;
  ChallengeParameters?: Record<string, string>;
  Session?: string;
}

/** A sign-in waiting for the authenticator app's code. */
export interface MfaChallenge {
  name: string;
  session: string;
  username: string;
}

export type SignInStep = { tokens: Tokens } | { challenge: MfaChallenge };

const tokensOf = (a: NonNullable<AuthResult['AuthenticationResult']>, refreshToken?: string): Tokens => ({
  accessToken: a.AccessToken,
  idToken: a.IdToken,
  refreshToken: a.RefreshToken ?? refreshToken,
  expiresAt: expiryOf(a.AccessToken) ?? Date.now() + (a.ExpiresIn && a.ExpiresIn > 0 ? a.ExpiresIn : 3600) * 1000,
});

async function stepOf(c: DashboardConfig, r: AuthResult, email: string): Promise<SignInStep> {
  if (r.AuthenticationResult) return { tokens: tokensOf(r.AuthenticationResult) };
  const username = r.ChallengeParameters?.USER_ID_FOR_SRP ?? email;
  // Only an authenticator app is offered (pool.ts): choose it when Cognito asks which.
  if (r.ChallengeName === 'SELECT_MFA_TYPE')
    return stepOf(
      c,
      await call<AuthResult>(c, 'RespondToAuthChallenge', {
        ClientId: c.userPoolClientId,
        ChallengeName: 'SELECT_MFA_TYPE',
        Session: r.Session,
        ChallengeResponses: { USERNAME: username, ANSWER: 'SOFTWARE_TOKEN_MFA' },
      }),
      email,
    );
  if (r.ChallengeName === 'SOFTWARE_TOKEN_MFA') return { challenge: { name: r.ChallengeName, session: r.Session ?? '', username } };
  throw new CognitoError(r.ChallengeName ?? 'Challenge', `Sign-in asks for a step this dashboard does not offer (${r.ChallengeName}).`);
}

export const signIn = async (c: DashboardConfig, email: string, password: string): Promise<SignInStep> =>
  stepOf(
    c,
    await call<AuthResult>(c, 'InitiateAuth', {
      ClientId: c.userPoolClientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
    email,
  );

/** Answers the MFA challenge with the authenticator app's 6-digit code. */
export const answerMfa = async (c: DashboardConfig, challenge: MfaChallenge, code: string, email: string): Promise<SignInStep> =>
  stepOf(
    c,
    await call<AuthResult>(c, 'RespondToAuthChallenge', {
      ClientId: c.userPoolClientId,
      ChallengeName: challenge.name,
      Session: challenge.session,
      ChallengeResponses: { USERNAME: challenge.username, SOFTWARE_TOKEN_MFA_CODE: code },
    }),
    email,
  );

export const refresh = async (c: DashboardConfig, refreshToken: string): Promise<Tokens> => {
  const r = await call<AuthResult>(c, 'InitiateAuth', {
    ClientId: c.userPoolClientId,
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    AuthParameters: { REFRESH_TOKEN: refreshToken },
  });
  if (!r.AuthenticationResult) throw new CognitoError('NotAuthorizedException', 'The session could not be renewed');
  return tokensOf(r.AuthenticationResult, refreshToken);
};

export const revokeToken = (c: DashboardConfig, refreshToken: string) =>
  call(c, 'RevokeToken', { ClientId: c.userPoolClientId, Token: refreshToken });

/** Is an authenticator app (software token MFA) on for this person? */
export const totpEnabled = async (c: DashboardConfig, accessToken: string): Promise<boolean> => {
  const u = await call<{ UserMFASettingList?: string[] }>(c, 'GetUser', { AccessToken: accessToken });
  return (u.UserMFASettingList ?? []).includes('SOFTWARE_TOKEN_MFA');
};

/** A new TOTP secret for this person (not in force until verified with a code). */
export const associateTotp = async (c: DashboardConfig, accessToken: string): Promise<string> =>
  (await call<{ SecretCode: string }>(c, 'AssociateSoftwareToken', { AccessToken: accessToken })).SecretCode;

/** Checks a code from the app against the new secret, then makes TOTP this person's MFA. */
export async function enableTotp(c: DashboardConfig, accessToken: string, code: string, deviceName: string): Promise<void> {
  const v = await call<{ Status?: string }>(c, 'VerifySoftwareToken', {
    AccessToken: accessToken,
    UserCode: code,
    FriendlyDeviceName: deviceName,
  });
  if (v.Status && v.Status !== 'SUCCESS') throw new CognitoError('CodeMismatchException', 'The code did not match. Try the next one.');
  await call(c, 'SetUserMFAPreference', { AccessToken: accessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } });
}

/**
 * Turns the authenticator app off, proven first (DESIGN 10.7): a fresh sign-in with the
 * password and a current code from the app (Cognito checks both), whose token turns it off;
 * that sign-in's own session is then revoked. A wrong password or code is Cognito's refusal.
 */
export async function disableTotp(c: DashboardConfig, email: string, password: string, code: string): Promise<void> {
  let step = await signIn(c, email, password);
  if ('challenge' in step) step = await answerMfa(c, step.challenge, code, email);
  if (!('tokens' in step)) throw new CognitoError('CodeMismatchException', 'The code did not match. Try the next one.');
  await call(c, 'SetUserMFAPreference', {
    AccessToken: step.tokens.accessToken,
    SoftwareTokenMfaSettings: { Enabled: false, PreferredMfa: false },
  });
  if (step.tokens.refreshToken) await revokeToken(c, step.tokens.refreshToken).catch(() => undefined);
}
