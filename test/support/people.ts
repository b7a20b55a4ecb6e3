/**
 * People in tests: real sign-up, confirmation and sign-in through the run's Cognito
 * emulator (started by global-setup.ts). The confirmation code is the one the emulator
 * stored with the user (and printed on its console). The emulator implements USER_PASSWORD_AUTH only
 * (no SRP), so that is the flow used here.
 */
import { ConfirmSignUpCommand, InitiateAuthCommand, SignUpCommand } from '@aws-sdk/client-cognito-identity-provider';
import { inject } from 'vitest';
import { randomToken } from '../../functions/domain/ids';
import { cognitoClient, confirmationCode } from '../../local/cognito';

export interface SignedIn {
  email: string;
  password: string;
  /** Cognito's user id (SignUp's UserSub). */
  sub: string;
  accessToken: string;
  idToken: string;
  refreshToken: string;
}

export const emulator = () => inject('cognito');

export const newEmail = (label = 'person') => `${label}-${randomToken(10).toLowerCase()}@example.com`;
/** Meets the pool's policy: 12+ characters with lower, upper, digit and symbol. */
export const newPassword = () => `Pw-${randomToken(12)}9a!`;

/** Signs a new person up, confirms them with the e-mailed code and signs them in. */
export async function signUpAndIn(opts: { email?: string; clientId?: string } = {}): Promise<SignedIn> {
  const { endpoint, dataDir, clientId: dashboard } = emulator();
  const clientId = opts.clientId ?? dashboard;
  const email = opts.email ?? newEmail();
  const password = newPassword();
  const client = cognitoClient(endpoint);
  try {
    const up = await client.send(
      new SignUpCommand({ ClientId: clientId, Username: email, Password: password, UserAttributes: [{ Name: 'email', Value: email }] }),
    );
    const code = await confirmationCode(dataDir, email);
    await client.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: email, ConfirmationCode: code }));
    const tokens = await signIn(email, password, clientId);
    return { email, password, sub: up.UserSub!, ...tokens };
  } finally {
    client.destroy();
  }
}

export async function signIn(email: string, password: string, clientId = emulator().clientId) {
  const client = cognitoClient(emulator().endpoint);
  try {
    const out = await client.send(
      new InitiateAuthCommand({
        ClientId: clientId,
        AuthFlow: 'USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );
    return {
      accessToken: out.AuthenticationResult!.AccessToken!,
      idToken: out.AuthenticationResult!.IdToken!,
      refreshToken: out.AuthenticationResult!.RefreshToken!,
    };
  } finally {
    client.destroy();
  }
}

/** New tokens from a refresh token (REFRESH_TOKEN_AUTH); rejects when Cognito refuses it (revoked). */
export async function refreshTokens(refreshToken: string, clientId = emulator().clientId) {
  const client = cognitoClient(emulator().endpoint);
  try {
    const out = await client.send(
      new InitiateAuthCommand({ ClientId: clientId, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }),
    );
    return { accessToken: out.AuthenticationResult!.AccessToken! };
  } finally {
    client.destroy();
  }
}

/** A signed-in person's calls: their access token, and the participant they act for when given. */
export function personCaller(
  t: { call: <_T = any>(m: string, p: string, o?: any) => Promise<any> },
  who: SignedIn,
  participantId?: string,
) {
  return <T = any>(
    method: string,
    path: string,
    opts: { body?: unknown; query?: Record<string, string | number>; headers?: Record<string, string> } = {},
  ) =>
    t.call<T>(method, path, {
      ...opts,
      key: who.accessToken,
      headers: { ...(participantId ? { 'x-participant-id': participantId } : {}), ...opts.headers },
    });
}

/** A valid application body (DESIGN 8.3). */
export const applicationBody = (type: 'merchant' | 'provider' = 'merchant', extra: Record<string, unknown> = {}) => ({
  type,
  businessName: `Ada Stores ${randomToken(6)}`,
  email: newEmail('biz'),
  country: 'NG',
  registrationNumber: `RC${randomToken(8)}`,
  website: 'https://ada.example.com',
  address: { line1: '1 Marina', city: 'Lagos', country: 'NG' },
  ...extra,
});
