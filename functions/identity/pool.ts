/**
 * The people's user pool (DESIGN 8.3), described once: lib/identity.ts builds the Cognito
 * user pool and its dashboard client from it, and local/cognito.ts creates the same pool
 * and client in the local emulator (cognito-local). Plain data: no CDK or SDK import.
 */
import type { Stage } from '../config';

export const USER_POOL = {
  /** Pool name per stage (the emulator looks the pool up by this name on every start). */
  name: (stage: Stage) => `idpay-${stage}-people`,
  /** People sign in with their e-mail address (no separate user name). */
  signInWith: 'email',
  /** Cognito e-mails a code on sign-up; the account is confirmed with it. */
  verify: 'email',
  selfSignUp: true,
  passwordPolicy: {
    minLength: 12,
    requireLowercase: true,
    requireUppercase: true,
    requireDigits: true,
    requireSymbols: true,
    tempPasswordValidityDays: 3,
  },
  /** MFA: optional, authenticator app (TOTP) only; no SMS (cost, SIM swap). */
  mfa: 'OPTIONAL',
  mfaTypes: ['totp'],
  /**
   * The roles that must sign in with TOTP, per stage (DESIGN 9.7). Cognito requires MFA per
   * pool or per user, never per role, and roles live in this API's memberships, so the pool
   * keeps MFA optional and the dashboard opens no page of a person holding one of these roles
   * until their authenticator app is set up (docs/decisions/dashboard-sessions.md).
   */
  mfaRequiredRoles: { sandbox: [], live: ['owner', 'admin'] } as const satisfies Record<Stage, readonly string[]>,
  /** Essentials lacks threat protection; Plus has it (compromised credentials, adaptive auth). */
  featurePlan: 'PLUS',
  /** Threat protection: live blocks risky sign-ins, sandbox only records them. */
  threatProtection: { sandbox: 'AUDIT', live: 'ENFORCED' } as const satisfies Record<Stage, 'AUDIT' | 'ENFORCED'>,
  /**
   * The dashboard's app client: public (a browser holds no secret). USER_PASSWORD_AUTH: the
   * dashboard signs in with it (the password goes to Cognito over TLS, never to this API; the
   * local emulator implements no SRP); SRP stays allowed for other clients.
   */
  client: {
    name: (stage: Stage) => `idpay-${stage}-dashboard`,
    generateSecret: false,
    authFlows: { userSrp: true, userPassword: true, adminUserPassword: false, custom: false },
    /** Token lifetimes: a payments dashboard keeps sessions short; the refresh token renews them. */
    accessTokenMinutes: 60,
    idTokenMinutes: 60,
    refreshTokenDays: 1,
    preventUserExistenceErrors: true,
    enableTokenRevocation: true,
  },
} as const;

/** Cognito's names for the client's auth flows (CreateUserPoolClient ExplicitAuthFlows). */
export function explicitAuthFlows(): string[] {
  const f = USER_POOL.client.authFlows;
  return [
    ...(f.userSrp ? ['ALLOW_USER_SRP_AUTH'] : []),
    ...(f.userPassword ? ['ALLOW_USER_PASSWORD_AUTH'] : []),
    ...(f.adminUserPassword ? ['ALLOW_ADMIN_USER_PASSWORD_AUTH'] : []),
    ...(f.custom ? ['ALLOW_CUSTOM_AUTH'] : []),
    'ALLOW_REFRESH_TOKEN_AUTH',
  ];
}
