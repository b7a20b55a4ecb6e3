/**
 * People's access tokens (DESIGN 8.3) against the real Cognito emulator: a person
 * signs up, confirms with the e-mailed code and signs in; the verifier accepts their access
 * token and refuses everything else with the exact messages. Tokens are forged only to test
 * their refusal.
 */
import {
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccessTokenError, TOKEN_MESSAGES, createAccessTokenVerifier, verifyAccessToken } from '../../functions/identity/tokens';
import { USER_POOL } from '../../functions/identity/pool';
import { cognitoClient, cognitoEnv, dashboardClientInput, ensureUserPool } from '../../local/cognito';
import { emulator, newEmail, signUpAndIn, type SignedIn } from '../support/people';

/* ---------- helpers ---------- */

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const decode = (token: string) => ({
  header: JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()),
  payload: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()),
});
/** An RS256 JWT signed with `key` (not the emulator's): what a forger can make. */
function signJwt(header: object, payload: object, key: KeyObject): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

async function refusal(p: Promise<unknown>): Promise<{ name: string; message: string; status?: number; isTokenError: boolean }> {
  try {
    await p;
  } catch (e) {
    const err = e as Error & { status?: number };
    return { name: err.name, message: err.message, status: err.status, isTokenError: e instanceof AccessTokenError };
  }
  throw new Error('expected a refusal, the token was accepted');
}
const invalid = { message: TOKEN_MESSAGES.invalid, status: 401, isTokenError: true };
const expired = { message: TOKEN_MESSAGES.expired, status: 401, isTokenError: true };

async function createClient(userPoolId: string, input: Record<string, unknown>) {
  const client = cognitoClient(emulator().endpoint);
  try {
    return (await client.send(new CreateUserPoolClientCommand({ UserPoolId: userPoolId, ClientName: `test-${newEmail('c')}`, ...input })))
      .UserPoolClient!.ClientId!;
  } finally {
    client.destroy();
  }
}

/* ---------- the run's pool, configured like a deployed function ---------- */

let person: SignedIn;
const forgerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

beforeAll(async () => {
  Object.assign(process.env, cognitoEnv(emulator()));
  person = await signUpAndIn();
});

describe('a signed-in person', () => {
  it('is known by their access token: sub and user name', async () => {
    const who = await verifyAccessToken(person.accessToken);
    expect(who.sub).toBe(person.sub);
    // With e-mail sign-in Cognito uses the sub as the user name; access tokens carry no e-mail.
    expect(who.username).toBe(person.sub);
    expect(who.email).toBeUndefined();
    // The e-mail is on the ID token (the dashboard has it; the API learns it from Cognito, not from this header).
    expect(decode(person.idToken).payload.email).toBe(person.email);
  });

  it('signs in again later and both tokens verify (the JWKS is cached, not re-fetched per token)', async () => {
    const other = await signUpAndIn();
    expect((await verifyAccessToken(other.accessToken)).sub).toBe(other.sub);
    expect((await verifyAccessToken(person.accessToken)).sub).toBe(person.sub);
    expect(other.sub).not.toBe(person.sub);
  });
});

describe('refused tokens', () => {
  it('an ID token where an access token is expected', async () => {
    expect(await refusal(verifyAccessToken(person.idToken))).toMatchObject(invalid);
  });

  it('an access token of another app client of the same pool', async () => {
    const otherClient = await createClient(emulator().userPoolId, { GenerateSecret: false });
    const outsider = await signUpAndIn({ clientId: otherClient });
    expect(decode(outsider.accessToken).payload.client_id).toBe(otherClient);
    expect(await refusal(verifyAccessToken(outsider.accessToken))).toMatchObject(invalid);
  });

  it('an access token of another user pool (another issuer), even though the emulator signs it with the same key', async () => {
    const client = cognitoClient(emulator().endpoint);
    let poolId: string;
    try {
      poolId = (
        await client.send(
          new CreateUserPoolCommand({
            PoolName: `other-${newEmail('p')}`,
            UsernameAttributes: ['email'],
            AutoVerifiedAttributes: ['email'],
          }),
        )
      ).UserPool!.Id!;
    } finally {
      client.destroy();
    }
    const clientId = await createClient(poolId, {});
    const stranger = await signUpAndIn({ clientId });
    expect(decode(stranger.accessToken).header.kid).toBe(decode(person.accessToken).header.kid);
    expect(await refusal(verifyAccessToken(stranger.accessToken))).toMatchObject(invalid);
  });

  it('a forged token: right claims and kid, signed with another key', async () => {
    const { header, payload } = decode(person.accessToken);
    const forged = signJwt(header, { ...payload, sub: 'someone-else' }, forgerKey);
    expect(await refusal(verifyAccessToken(forged))).toMatchObject(invalid);
  });

  it('a tampered token: the real signature over a changed payload', async () => {
    const [h, , s] = person.accessToken.split('.');
    const { payload } = decode(person.accessToken);
    const tampered = `${h}.${b64url({ ...payload, sub: '00000000-0000-0000-0000-000000000000' })}.${s}`;
    expect(await refusal(verifyAccessToken(tampered))).toMatchObject(invalid);
  });

  it('an unsigned token (alg none) and strings that are not tokens', async () => {
    const { payload } = decode(person.accessToken);
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
    for (const t of [unsigned, '', 'not-a-token', 'a.b.c', `${person.accessToken}x`]) {
      expect(await refusal(verifyAccessToken(t)), JSON.stringify(t.slice(0, 20))).toMatchObject(invalid);
    }
  });

  it('a forged expired token is "invalid", not "expired" (the signature is checked first)', async () => {
    const { header, payload } = decode(person.accessToken);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const forged = signJwt(header, { ...payload, iat: past - 60, exp: past }, forgerKey);
    expect(await refusal(verifyAccessToken(forged))).toMatchObject(invalid);
  });

  it('a real token after its validity: "Access token has expired"', async () => {
    // A client whose access tokens live 2 s (the emulator accepts seconds; Cognito's minimum is 5 min).
    const shortLived = await createClient(emulator().userPoolId, {
      AccessTokenValidity: 2,
      TokenValidityUnits: { AccessToken: 'seconds', IdToken: 'minutes', RefreshToken: 'days' },
    });
    const verify = createAccessTokenVerifier({ issuer: emulator().issuer, clientId: shortLived });
    const p = await signUpAndIn({ clientId: shortLived });
    const { payload } = decode(p.accessToken);
    expect(payload.exp - payload.iat).toBe(2);
    expect((await verify(p.accessToken)).sub).toBe(p.sub);
    // The verifier runs in this process and reads Date.now(): its clock moves past `exp`
    // (the emulator that issued the token keeps its own time).
    vi.useFakeTimers({ toFake: ['Date'], now: payload.exp * 1000 + 1100 });
    try {
      expect(await refusal(verify(p.accessToken))).toMatchObject(expired);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the JWKS', () => {
  let proxy: Server;
  let proxyUrl: string;
  let fetches = 0;
  let failing = false;

  beforeAll(async () => {
    // Counts JWKS requests on their way to the emulator.
    proxy = createServer(async (req, res) => {
      fetches++;
      if (failing) {
        res.writeHead(503).end();
        return;
      }
      const upstream = await fetch(`${emulator().endpoint}${req.url}`);
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const addr = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

  it('is fetched once per verifier and reused for every later token', async () => {
    fetches = 0;
    const { issuer, clientId, userPoolId } = emulator();
    const verify = createAccessTokenVerifier({ issuer, clientId, jwksUri: `${proxyUrl}/${userPoolId}/.well-known/jwks.json` });
    const other = await signUpAndIn();
    await Promise.all([verify(person.accessToken), verify(person.accessToken)]);
    await verify(other.accessToken);
    await verify(person.accessToken);
    expect(fetches).toBe(1);
  });

  it('that cannot be fetched is a fault of ours, not a 401 for the caller', async () => {
    failing = true;
    try {
      const { issuer, clientId, userPoolId } = emulator();
      const verify = createAccessTokenVerifier({ issuer, clientId, jwksUri: `${proxyUrl}/${userPoolId}/.well-known/jwks.json` });
      const r = await refusal(verify(person.accessToken));
      expect(r.isTokenError).toBe(false);
      expect(r.status).toBeUndefined();
    } finally {
      failing = false;
    }
  });
});

describe('the local pool (local/cognito.ts)', () => {
  it('has the settings of the shared definition, and a second start finds it again instead of creating another', async () => {
    const { endpoint, userPoolId, clientId } = emulator();
    const client = cognitoClient(endpoint);
    try {
      const pool = (await client.send(new DescribeUserPoolCommand({ UserPoolId: userPoolId }))).UserPool!;
      expect(pool.Name).toBe(USER_POOL.name('sandbox'));
      expect(pool.UsernameAttributes).toEqual(['email']);
      expect(pool.AutoVerifiedAttributes).toEqual(['email']);
      expect(pool.MfaConfiguration).toBe('OPTIONAL');
      expect(pool.Policies?.PasswordPolicy).toMatchObject({ MinimumLength: 12, RequireSymbols: true, RequireNumbers: true });
      const dash = (await client.send(new DescribeUserPoolClientCommand({ UserPoolId: userPoolId, ClientId: clientId }))).UserPoolClient!;
      const want = dashboardClientInput('sandbox', userPoolId);
      expect(dash).toMatchObject({
        ClientName: want.ClientName,
        ExplicitAuthFlows: want.ExplicitAuthFlows,
        AccessTokenValidity: 60,
        TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'days' },
      });
      expect(dash.ClientSecret).toBeUndefined();
    } finally {
      client.destroy();
    }
    const again = await ensureUserPool(endpoint, 'sandbox');
    expect(again).toEqual({ userPoolId, clientId, issuer: emulator().issuer });
  });
});
