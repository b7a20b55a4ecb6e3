/**
 * People in tests: real sign-up, confirmation and sign-in through the run's Cognito
 * emulator (started by global-setup.ts). The confirmation code is the one the emulator
 * stored with the user (and printed on its console). The emulator implements USER_PASSWORD_AUTH only
 * (no SRP), so that is the flow used here.
 */
import {
  AssociateSoftwareTokenCommand,
  ConfirmSignUpCommand,
  InitiateAuthCommand,
  SetUserMFAPreferenceCommand,
  SignUpCommand,
  VerifySoftwareTokenCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { createHmac } from 'node:crypto';
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

/**
 * Signs a new person up, confirms them with the e-mailed code and signs them in; with `mfa`,
 * also sets up an authenticator app (live owners and admins must have one, DESIGN 10.3).
 */
export async function signUpAndIn(opts: { email?: string; clientId?: string; mfa?: boolean } = {}): Promise<SignedIn> {
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
    const who = { email, password, sub: up.UserSub!, ...tokens };
    if (opts.mfa) await turnOnTotp(who);
    return who;
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

/** The 6-digit TOTP code (RFC 6238: SHA-1, 30 s) an authenticator app shows for a base32 `secret`. */
export function totp(secret: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...secret.replace(/=+$/, '').toUpperCase()].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const h = createHmac('sha1', key).update(counter).digest();
  const offset = h[h.length - 1]! & 0xf;
  return String((h.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * Sets up an authenticator app for the signed-in person at Cognito, as the dashboard's Security
 * page does (AssociateSoftwareToken, one code through VerifySoftwareToken, SetUserMFAPreference).
 * Their tokens stay valid; later sign-ins ask for a code. Returns the app's secret.
 */
export async function turnOnTotp(who: Pick<SignedIn, 'accessToken'>): Promise<string> {
  const client = cognitoClient(emulator().endpoint);
  try {
    const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken: who.accessToken }));
    await client.send(new VerifySoftwareTokenCommand({ AccessToken: who.accessToken, UserCode: totp(SecretCode!) }));
    await client.send(
      new SetUserMFAPreferenceCommand({ AccessToken: who.accessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }),
    );
    return SecretCode!;
  } finally {
    client.destroy();
  }
}

/** Turns the person's authenticator app off at Cognito, with their own token (as a person may, outside the dashboard). */
export async function turnOffTotp(who: Pick<SignedIn, 'accessToken'>): Promise<void> {
  const client = cognitoClient(emulator().endpoint);
  try {
    await client.send(
      new SetUserMFAPreferenceCommand({ AccessToken: who.accessToken, SoftwareTokenMfaSettings: { Enabled: false, PreferredMfa: false } }),
    );
  } finally {
    client.destroy();
  }
}
