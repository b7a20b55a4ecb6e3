/**
 * Sign-up and sign-in against Amazon Cognito's user pool API (the emulator locally): the
 * unauthenticated JSON calls of the public dashboard client, with fetch, so no AWS SDK ships
 * to the browser. Flow: SignUp -> ConfirmSignUp (the e-mailed code) -> InitiateAuth
 * (USER_PASSWORD_AUTH) -> tokens; RefreshToken renews the access token.
 */
import { cognitoUrl, type DashboardConfig } from './config';

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken?: string;
  /** Epoch ms at which the access token expires. */
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
  const r = await fetch(cognitoUrl(c), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}` },
    body: JSON.stringify(body),
  });
  const json = (await r.json().catch(() => ({}))) as Record<string, unknown>;
  if (!r.ok) {
    const code = String(json.__type ?? json.code ?? 'Error')
      .split('#')
      .pop()!;
    throw new CognitoError(code, String(json.message ?? json.Message ?? 'Sign-in failed'));
  }
  return json as T;
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

interface AuthResult {
  AuthenticationResult?: { AccessToken: string; IdToken: string; RefreshToken?: string; ExpiresIn?: number };
  ChallengeName?: string;
}

const tokensOf = (r: AuthResult, refreshToken?: string): Tokens => {
  const a = r.AuthenticationResult;
  if (!a)
    throw new CognitoError(r.ChallengeName ?? 'Challenge', `Sign-in needs a step this dashboard does not support (${r.ChallengeName})`);
  return {
    accessToken: a.AccessToken,
    idToken: a.IdToken,
    refreshToken: a.RefreshToken ?? refreshToken,
    expiresAt: Date.now() + (a.ExpiresIn && a.ExpiresIn > 0 ? a.ExpiresIn : 3600) * 1000,
  };
};

export const signIn = async (c: DashboardConfig, email: string, password: string) =>
  tokensOf(
    await call<AuthResult>(c, 'InitiateAuth', {
      ClientId: c.userPoolClientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );

export const refresh = async (c: DashboardConfig, refreshToken: string) =>
  tokensOf(
    await call<AuthResult>(c, 'InitiateAuth', {
      ClientId: c.userPoolClientId,
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
    refreshToken,
  );
