import { endpoint, ok } from '../../http/endpoint';
import { USER_POOL } from '../../identity/pool';
import { endSession } from '../../identity/session-store';
import { refreshTokenSession, revokeRefreshToken } from '../../identity/tokens';
import { MSG, badRequest } from '../../platform/errors';
import { signOutSchema } from './schemas';

/**
 * POST /v1/me/sign-out (person): ends the session of the access token it is called with
 * (DESIGN 9.1): the session's refresh token (`refreshToken`, when given) is revoked at
 * Cognito, and every access token of the session is refused from now on (401 `Session has
 * ended`); the person's other sessions keep working. A refresh token of another session, the
 * person's own included, is 400 `Refresh token does not belong to this session` and nothing is
 * revoked or ended (DESIGN 10.3). Signing out again answers the same.
 */
export const handler = endpoint(
  {
    body: signOutSchema,
    description:
      "End this sign-in session: its refresh token is revoked and its access tokens are refused from now on (401 `Session has ended`). Other sessions keep working. Another session's refresh token: 400 `Refresh token does not belong to this session`, and nothing is revoked.",
  },
  async ({ body, person }) => {
    let revoked = false;
    if (body.refreshToken) {
      // Only this session's own refresh token is revoked (one Cognito refusal, or Cognito out of
      // reach, revokes nothing: the session still ends below, for the refresh token's lifetime).
      const owner = await refreshTokenSession(body.refreshToken);
      if (owner && (owner.sub !== person!.sub || owner.session !== person!.session))
        throw badRequest(MSG.refreshTokenForeign, [
          { path: 'refreshToken', message: 'must be the refresh token of the session this access token belongs to' },
        ]);
      revoked = owner ? await revokeRefreshToken(body.refreshToken) : false;
    }
    // Until when a token of the session could still be valid: its access token's expiry once the
    // refresh token is revoked; otherwise the refresh token could mint more until it expires.
    const until = revoked
      ? person!.expiresAt
      : Math.max(person!.expiresAt, Math.floor(Date.now() / 1000) + USER_POOL.client.refreshTokenDays * 86_400);
    await endSession(person!.sub, person!.session, until);
    return ok(200, 'Signed out', { signedOut: true, refreshTokenRevoked: revoked });
  },
);
