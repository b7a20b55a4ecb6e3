/**
 * The Cognito emulator's process (local/cognito.ts spawns it): cognito-local 5.3.0, with the
 * few parts of Cognito's API the dashboard needs and the package lacks added at run time
 * (node_modules is not modified), then the package's own start script.
 *
 * - `ResendConfirmationCode`: a new code for an unconfirmed account, stored with the user and
 *   "delivered" like SignUp's (the console box; `npm start` prints it from the data files).
 * - `ConfirmSignUp` marks the e-mail address verified (`email_verified`), as Cognito does for
 *   an auto-verified attribute (accepting an invitation needs a verified address, DESIGN 9.1).
 * - `RespondToAuthChallenge` keeps the refresh token it issues, as `InitiateAuth` does: a
 *   session that signed in with a TOTP code can then be refreshed and revoked (RevokeToken).
 * - `UpdateUserAttributes` of `email` leaves the new address unverified (`email_verified`
 *   false), as Cognito does.
 * - `PreventUserExistenceErrors` (the dashboard client's setting, DESIGN 10.7): `InitiateAuth`
 *   answers an unknown user and a wrong password alike (`NotAuthorizedException`, `Incorrect
 *   username or password.`), and `ForgotPassword` for an unknown user answers as if a code went
 *   out, as Cognito does with the setting on.
 * - `origin_jti` on access tokens, as Cognito sets it: one id per sign-in, the same on every
 *   access token refreshed from that sign-in's refresh token (which carries it too), so a
 *   session can be told apart from the person's other sessions (sign-out, DESIGN 9.1).
 *
 * Node runs this file directly (type stripping): erasable TypeScript only, no relative imports.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('cognito-local/package.json'));
const fromPackage = createRequire(join(root, 'package.json'));
const lib = (path: string) => fromPackage(join(root, 'lib', path));

type Ctx = { logger: unknown };
type Request = Record<string, any>;
type Target = (services: Services) => (ctx: Ctx, req: Request) => Promise<Record<string, unknown>>;
interface User {
  Username: string;
  UserStatus?: string;
  Attributes?: { Name: string; Value: string }[];
  RefreshTokens?: string[];
}
interface Services {
  cognito: { getUserPoolForClientId(ctx: Ctx, clientId: string): Promise<UserPool> };
  messages: { deliver(...args: unknown[]): Promise<void> };
  otp(): string;
  clock: { get(): Date };
}
interface UserPool {
  options: { Id: string };
  getUserByUsername(ctx: Ctx, username: string): Promise<User | null>;
  saveUser(ctx: Ctx, user: User & Record<string, unknown>): Promise<void>;
  storeRefreshToken(ctx: Ctx, token: string, user: User): Promise<void>;
}

const { Targets } = lib('targets/targets.js') as { Targets: Record<string, Target> };
const errors = lib('errors.js');
const { JwtTokenGenerator } = lib('services/tokenGenerator.js');
const jwt = fromPackage('jsonwebtoken');
const privateKey = fromPackage(join(root, 'lib', 'keys', 'cognitoLocal.private.json')) as { pem: string };

// ResendConfirmationCode (Cognito: a new code replaces the old one; confirmed accounts are refused).
Targets.ResendConfirmationCode =
  ({ cognito, messages, otp, clock }) =>
  async (ctx, req) => {
    const pool = await cognito.getUserPoolForClientId(ctx, req.ClientId);
    const user = await pool.getUserByUsername(ctx, req.Username);
    if (!user) throw new errors.UserNotFoundError('Username/client id combination not found.');
    if (user.UserStatus !== 'UNCONFIRMED') throw new errors.InvalidParameterError('User is already confirmed.');
    const email = user.Attributes?.find((a) => a.Name === 'email')?.Value;
    if (!email) throw new errors.InvalidParameterError('User has no e-mail address to send a code to');
    const details = { AttributeName: 'email', DeliveryMedium: 'EMAIL', Destination: email };
    const code = otp();
    await messages.deliver(ctx, 'ResendCode', req.ClientId, pool.options.Id, user, code, req.ClientMetadata, details);
    await pool.saveUser(ctx, { ...user, ConfirmationCode: code, UserLastModifiedDate: clock.get() });
    return { CodeDeliveryDetails: details };
  };

// ConfirmSignUp: the code went to the e-mail address, so the address is verified.
const confirmSignUp = Targets.ConfirmSignUp!;
Targets.ConfirmSignUp = (services) => {
  const run = confirmSignUp(services);
  return async (ctx, req) => {
    const out = await run(ctx, req);
    const pool = await services.cognito.getUserPoolForClientId(ctx, req.ClientId);
    const user = await pool.getUserByUsername(ctx, req.Username);
    if (user) {
      const Attributes = [...(user.Attributes ?? []).filter((a) => a.Name !== 'email_verified'), { Name: 'email_verified', Value: 'true' }];
      await pool.saveUser(ctx, { ...user, Attributes });
    }
    return out;
  };
};

// UpdateUserAttributes: a new e-mail address is not verified until its code is confirmed
// (Cognito sets email_verified false; with keepOriginal it even keeps the old address until
// then). The emulator leaves a changed address "verified": an invitation check could be fooled.
const updateUserAttributes = Targets.UpdateUserAttributes!;
Targets.UpdateUserAttributes = (services) => {
  const run = updateUserAttributes(services);
  return async (ctx, req) => {
    const out = await run(ctx, req);
    const changed = (req.UserAttributes as { Name: string }[] | undefined)?.some((a) => a.Name === 'email');
    const sub = (jwt.decode(req.AccessToken) as { sub?: string; client_id?: string } | null) ?? {};
    if (changed && sub.sub && sub.client_id) {
      const pool = await services.cognito.getUserPoolForClientId(ctx, sub.client_id);
      const user = await pool.getUserByUsername(ctx, sub.sub);
      if (user) {
        const Attributes = [
          ...(user.Attributes ?? []).filter((a) => a.Name !== 'email_verified'),
          { Name: 'email_verified', Value: 'false' },
        ];
        await pool.saveUser(ctx, { ...user, Attributes });
      }
    }
    return out;
  };
};

// RespondToAuthChallenge: keep the refresh token it issues.
const respond = Targets.RespondToAuthChallenge!;
Targets.RespondToAuthChallenge = (services) => {
  const run = respond(services);
  return async (ctx, req) => {
    const out = (await run(ctx, req)) as { AuthenticationResult?: { RefreshToken?: string } };
    const token = out.AuthenticationResult?.RefreshToken;
    if (token) {
      const pool = await services.cognito.getUserPoolForClientId(ctx, req.ClientId);
      const user = await pool.getUserByUsername(ctx, req.ChallengeResponses?.USERNAME);
      if (user) await pool.storeRefreshToken(ctx, token, user);
    }
    return out;
  };
};

// origin_jti: a refresh passes on the origin its refresh token carries; a sign-in starts a new one.
// PreventUserExistenceErrors: no answer tells an unknown user from a wrong password.
const origin = new AsyncLocalStorage<string>();
const initiate = Targets.InitiateAuth!;
const SAME_REFUSAL = new Set(['NotAuthorizedException', 'UserNotFoundException', 'InvalidPasswordException']);
Targets.InitiateAuth = (services) => {
  const run = initiate(services);
  const refuseAlike = (e: { code?: string }) => {
    if (SAME_REFUSAL.has(e?.code ?? '')) throw new errors.NotAuthorizedError('Incorrect username or password.');
    throw e;
  };
  return (ctx, req) => {
    const refreshToken = req.AuthParameters?.REFRESH_TOKEN;
    const carried = refreshToken ? (jwt.decode(refreshToken) as { origin_jti?: string } | null)?.origin_jti : undefined;
    if (carried) return origin.run(carried, () => run(ctx, req));
    return run(ctx, req).catch(refuseAlike);
  };
};

const forgot = Targets.ForgotPassword!;
Targets.ForgotPassword = (services) => {
  const run = forgot(services);
  return async (ctx, req) => {
    const pool = await services.cognito.getUserPoolForClientId(ctx, req.ClientId);
    if (await pool.getUserByUsername(ctx, req.Username)) return run(ctx, req);
    const masked = String(req.Username ?? '').replace(/^(.).*@/, '$1***@');
    return { CodeDeliveryDetails: { AttributeName: 'email', DeliveryMedium: 'EMAIL', Destination: masked } };
  };
};
const generate = JwtTokenGenerator.prototype.generate;
const resign = (token: string, claims: Record<string, unknown>) => {
  const payload = jwt.decode(token) as Record<string, unknown>;
  return jwt.sign({ ...payload, ...claims }, privateKey.pem, { algorithm: 'RS256', keyid: 'CognitoLocal' });
};
JwtTokenGenerator.prototype.generate = async function (this: unknown, ...args: unknown[]) {
  const tokens = (await generate.apply(this, args)) as { AccessToken: string; RefreshToken?: string };
  const origin_jti = origin.getStore() ?? randomUUID();
  return {
    ...tokens,
    AccessToken: resign(tokens.AccessToken, { origin_jti }),
    ...(tokens.RefreshToken ? { RefreshToken: resign(tokens.RefreshToken, { origin_jti }) } : {}),
  };
};

lib('bin/start.js');
