/**
 * People's access tokens (DESIGN 8.3): `Authorization: Bearer <Cognito access token>`.
 *
 * Verified with aws-jwt-verify: RS256 signature against the pool's JWKS, issuer, token use
 * `access`, the dashboard client's id (access tokens carry `client_id`, not `aud`), expiry.
 * The JWKS is fetched once per issuer and kept in module scope, so warm invocations verify
 * without a network call (a token with an unknown `kid` triggers at most one refetch, then
 * aws-jwt-verify's penalty box).
 *
 * Configuration (same names on Lambda and locally):
 * - COGNITO_USER_POOL_ID  the pool
 * - COGNITO_CLIENT_ID     the dashboard app client whose tokens are accepted
 * - COGNITO_ISSUER        the token issuer; on AWS `https://cognito-idp.<region>.amazonaws.com/<poolId>`,
 *                         locally the emulator's own URL + `/<poolId>`. The JWKS is `<issuer>/.well-known/jwks.json`.
 *
 * Failures a caller caused are an `AccessTokenError` (the pipeline maps it to 401 with its
 * message); a JWKS that cannot be fetched is an infrastructure fault and is rethrown as is.
 */
import type { Fetcher } from 'aws-jwt-verify/https';
import { messages } from '../platform/errors';
import { logger } from '../platform/log';

/**
 * aws-jwt-verify is loaded on the first token a Lambda instance sees, not at init: the
 * machine traffic (API keys) never pays for it, and it is not in the handlers' bundles
 * (lib/lambda.ts ships the package beside each API bundle, marked external; ~18 KB that would
 * take the largest handlers over the 400 KB budget; docs/decisions/person-authentication.md).
 */
const loadJwtVerify = () =>
  Promise.all([
    import('aws-jwt-verify'),
    import('aws-jwt-verify/cognito-verifier'),
    import('aws-jwt-verify/error'),
    import('aws-jwt-verify/jwk'),
  ]).then(([main, cognito, error, jwk]) => ({ ...main, ...cognito, ...error, ...jwk }));
type JwtVerify = Awaited<ReturnType<typeof loadJwtVerify>>;
let jwtVerify: Promise<JwtVerify> | undefined;

/** The exact messages of a refused token (docs/decisions/person-authentication.md). */
export const TOKEN_MESSAGES = messages({
  invalid: [401, 'access_token_invalid', 'Invalid access token'],
  expired: [401, 'access_token_expired', 'Access token has expired'],
});

export type AccessTokenErrorReason = keyof typeof TOKEN_MESSAGES;

export class AccessTokenError extends Error {
  readonly status = 401;
  constructor(readonly reason: AccessTokenErrorReason) {
    super(TOKEN_MESSAGES[reason]);
    this.name = 'AccessTokenError';
  }
}

/** The signed-in person behind a verified access token. */
export interface Person {
  /** Cognito's stable user id (`sub`): the key of memberships. */
  sub: string;
  /** Cognito's user name (with e-mail sign-in, Cognito uses the `sub` here too). */
  username: string;
  /** Only when the token carries it (access tokens normally do not; ID tokens do). */
  email?: string;
  /**
   * The sign-in session the token belongs to (DESIGN 9.1): Cognito's `origin_jti`, the same
   * on every access token refreshed from that sign-in's refresh token (`event_id`, then `jti`,
   * where a token lacks it). `POST /v1/me/sign-out` ends it.
   */
  session: string;
  /** The token's `exp` (epoch seconds). */
  expiresAt: number;
}

export interface TokenVerifierConfig {
  issuer: string;
  clientId: string;
  /** Defaults to `<issuer>/.well-known/jwks.json`. */
  jwksUri?: string;
}

/** Reads the verifier's configuration from the environment. */
export function tokenConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TokenVerifierConfig {
  const issuer = env.COGNITO_ISSUER;
  const clientId = env.COGNITO_CLIENT_ID;
  if (!issuer || !clientId) throw new Error('Configuration COGNITO_ISSUER and COGNITO_CLIENT_ID must be set');
  return { issuer: issuer.replace(/\/+$/, ''), clientId };
}

/**
 * The JWKS is fetched with the runtime's `fetch` (aws-jwt-verify's default fetcher speaks
 * HTTPS only; the local emulator serves HTTP on 127.0.0.1). The URL comes from deployment
 * configuration, never from the token. 1.5 s timeout: a hanging JWKS must not eat the
 * request's whole budget.
 */
const jwksFetcher = (lib: JwtVerify): Fetcher => ({
  async fetch(uri) {
    const res = await fetch(uri, { signal: AbortSignal.timeout(1500), redirect: 'error' });
    if (!res.ok) throw new lib.FetchError(uri, `JWKS answered ${res.status}`);
    return res.arrayBuffer();
  },
});

export type AccessTokenVerifier = (token: string) => Promise<Person>;

/** A verifier for one pool and client; it keeps its JWKS for its whole life. */
export function createAccessTokenVerifier(cfg: TokenVerifierConfig): AccessTokenVerifier {
  let made: Promise<{ lib: JwtVerify; verify: (token: string) => Promise<Record<string, unknown>> }> | undefined;
  const make = async () => {
    const lib = await (jwtVerify ??= loadJwtVerify());
    const verifier = lib.JwtRsaVerifier.create(
      {
        issuer: cfg.issuer,
        jwksUri: cfg.jwksUri ?? `${cfg.issuer}/.well-known/jwks.json`,
        // Access tokens have no `aud`; the client is checked on `client_id` below.
        audience: null,
        customJwtCheck: ({ payload }) => lib.validateCognitoJwtFields(payload, { tokenUse: 'access', clientId: cfg.clientId }),
      },
      { jwksCache: new lib.SimpleJwksCache({ fetcher: jwksFetcher(lib) }) },
    );
    return { lib, verify: (token: string) => verifier.verify(token) as Promise<Record<string, unknown>> };
  };
  return async (token) => {
    const { lib, verify } = await (made ??= make());
    let payload;
    try {
      payload = await verify(token);
    } catch (e) {
      throw toTokenError(lib, e);
    }
    const sub = payload.sub;
    const username = payload.username;
    if (typeof sub !== 'string' || !sub || typeof username !== 'string' || !username) {
      throw new AccessTokenError('invalid');
    }
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    const session = [payload.origin_jti, payload.event_id, payload.jti].find((v): v is string => typeof v === 'string' && v !== '');
    const exp = payload.exp;
    if (!session || typeof exp !== 'number') throw new AccessTokenError('invalid');
    return { sub, username, session, expiresAt: exp, ...(email ? { email } : {}) };
  };
}

/** Expired is told apart (the dashboard refreshes then); every other refusal is "invalid". */
function toTokenError(lib: JwtVerify, e: unknown): unknown {
  if (e instanceof lib.JwtExpiredError) return new AccessTokenError('expired');
  // The JWKS endpoint being down is not the caller's fault: let it surface as a fault.
  if (e instanceof lib.FetchError) return e;
  if (e instanceof lib.JwtBaseError) return new AccessTokenError('invalid');
  return e;
}

/* Module scope: one verifier per (issuer, client) for the life of the Lambda instance. */
const verifiers = new Map<string, AccessTokenVerifier>();

/**
 * Verifies a person's access token against the configured pool and client.
 * Resolves to the person, or rejects with an `AccessTokenError` (401).
 */
export function verifyAccessToken(token: string): Promise<Person> {
  const cfg = tokenConfigFromEnv();
  const key = `${cfg.issuer} ${cfg.clientId}`;
  let verify = verifiers.get(key);
  if (!verify) {
    verify = createAccessTokenVerifier(cfg);
    verifiers.set(key, verify);
  }
  return verify(token);
}

/** A JWT's shape (three base64url parts): what is tried as an access token rather than an API key. */
export const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

/** Cognito's JSON API of the configured pool: the issuer's origin (AWS: `https://cognito-idp.<region>.amazonaws.com`, locally the emulator). */
async function cognitoCall(target: string, body: Record<string, unknown>): Promise<Response> {
  const { issuer } = tokenConfigFromEnv();
  return fetch(`${issuer.slice(0, issuer.lastIndexOf('/'))}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${target}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(3000),
    redirect: 'error',
  });
}

/** What Cognito's `GetUser` says of the signed-in person (authorised by their own access token). */
async function getUser(
  accessToken: string,
): Promise<{ UserAttributes?: { Name: string; Value: string }[]; UserMFASettingList?: string[] }> {
  const res = await cognitoCall('GetUser', { AccessToken: accessToken });
  if (!res.ok) {
    if (res.status >= 500) throw new Error(`Cognito GetUser answered ${res.status}`);
    throw new AccessTokenError('invalid');
  }
  return (await res.json()) as { UserAttributes?: { Name: string; Value: string }[]; UserMFASettingList?: string[] };
}

/**
 * The signed-in person's e-mail address and whether they verified it, from Cognito's `GetUser`
 * (authorised by the access token itself; access tokens carry no e-mail). Asked only where the
 * address matters (an application's applicant, accepting an invitation that names an address).
 */
export async function personContact(accessToken: string): Promise<{ email?: string; emailVerified: boolean }> {
  const out = await getUser(accessToken);
  const attr = (name: string) => out.UserAttributes?.find((a) => a.Name === name)?.Value;
  return { email: attr('email')?.toLowerCase(), emailVerified: attr('email_verified') === 'true' };
}

/**
 * Whether the signed-in person has an authenticator app on (Cognito software-token MFA): Cognito's
 * `GetUser` lists it in `UserMFASettingList` once `SetUserMFAPreference` enabled it, and drops it
 * when they turn it off (the dashboard's Security page reads the same; DESIGN 10.3).
 */
export async function softwareTokenMfaOn(accessToken: string): Promise<boolean> {
  return ((await getUser(accessToken)).UserMFASettingList ?? []).includes('SOFTWARE_TOKEN_MFA');
}

/** The signed-in person's e-mail address (see `personContact`). */
export const personEmail = async (accessToken: string) => (await personContact(accessToken)).email;

/**
 * Whose sign-in session a refresh token of the dashboard's client belongs to (DESIGN 10.3): Cognito
 * mints an access token from it (`REFRESH_TOKEN_AUTH`, as the dashboard renews), and that token
 * carries the session's `origin_jti` (the emulator's too). On AWS a refresh token is opaque
 * (encrypted), so asking Cognito is the only way to read it. Undefined when Cognito refuses the
 * token (revoked, expired, another client's, malformed) or cannot be reached: nobody can then
 * be told it is theirs, and nothing is revoked.
 */
export async function refreshTokenSession(refreshToken: string): Promise<{ sub: string; session: string } | undefined> {
  try {
    const res = await cognitoCall('InitiateAuth', {
      ClientId: tokenConfigFromEnv().clientId,
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    });
    if (!res.ok) return undefined;
    const out = (await res.json()) as { AuthenticationResult?: { AccessToken?: string } };
    const accessToken = out.AuthenticationResult?.AccessToken;
    if (!accessToken) return undefined;
    const { sub, session } = await verifyAccessToken(accessToken);
    return { sub, session };
  } catch (error) {
    if (error instanceof AccessTokenError) return undefined;
    logger.warn('Cognito could not be reached to read a refresh token', { error: error as Error });
    return undefined;
  }
}

/**
 * Revokes a refresh token of the dashboard's client at Cognito (`RevokeToken`: no IAM, the
 * client id is the credential of a public client). True when Cognito revoked it; false when it
 * refused the token (not of this client, already revoked, malformed) or could not be reached:
 * the caller ends the session in the table either way (DESIGN 9.1).
 */
export async function revokeRefreshToken(refreshToken: string): Promise<boolean> {
  try {
    const res = await cognitoCall('RevokeToken', { Token: refreshToken, ClientId: tokenConfigFromEnv().clientId });
    if (!res.ok) logger.warn('Cognito refused to revoke a refresh token', { status: res.status });
    return res.ok;
  } catch (error) {
    logger.warn('Cognito could not be reached to revoke a refresh token', { error: error as Error });
    return false;
  }
}
