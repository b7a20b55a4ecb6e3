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
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { validateCognitoJwtFields } from 'aws-jwt-verify/cognito-verifier';
import { JwtBaseError, JwtExpiredError, FetchError } from 'aws-jwt-verify/error';
import type { Fetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';

/** The exact messages of a refused token (docs/decisions.md, "People and identity"). */
export const TOKEN_MESSAGES = {
  invalid: 'Invalid access token',
  expired: 'Access token has expired',
} as const;

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
const jwksFetcher: Fetcher = {
  async fetch(uri) {
    const res = await fetch(uri, { signal: AbortSignal.timeout(1500), redirect: 'error' });
    if (!res.ok) throw new FetchError(uri, `JWKS answered ${res.status}`);
    return res.arrayBuffer();
  },
};

export type AccessTokenVerifier = (token: string) => Promise<Person>;

/** A verifier for one pool and client; it keeps its JWKS for its whole life. */
export function createAccessTokenVerifier(cfg: TokenVerifierConfig): AccessTokenVerifier {
  const verifier = JwtRsaVerifier.create(
    {
      issuer: cfg.issuer,
      jwksUri: cfg.jwksUri ?? `${cfg.issuer}/.well-known/jwks.json`,
      // Access tokens have no `aud`; the client is checked on `client_id` below.
      audience: null,
      customJwtCheck: ({ payload }) => validateCognitoJwtFields(payload, { tokenUse: 'access', clientId: cfg.clientId }),
    },
    { jwksCache: new SimpleJwksCache({ fetcher: jwksFetcher }) },
  );
  return async (token) => {
    let payload;
    try {
      payload = await verifier.verify(token);
    } catch (e) {
      throw toTokenError(e);
    }
    const sub = payload.sub;
    const username = payload.username;
    if (typeof sub !== 'string' || !sub || typeof username !== 'string' || !username) {
      throw new AccessTokenError('invalid');
    }
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    return email ? { sub, username, email } : { sub, username };
  };
}

/** Expired is told apart (the dashboard refreshes then); every other refusal is "invalid". */
function toTokenError(e: unknown): unknown {
  if (e instanceof JwtExpiredError) return new AccessTokenError('expired');
  // The JWKS endpoint being down is not the caller's fault: let it surface as a fault.
  if (e instanceof FetchError) return e;
  if (e instanceof JwtBaseError) return new AccessTokenError('invalid');
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
