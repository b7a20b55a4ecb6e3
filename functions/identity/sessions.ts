/**
 * People's sessions that have ended (DESIGN 9.1): `POST /v1/me/sign-out` ends the session of
 * the access token it is called with, and from then on every access token of that session is
 * refused (401 `Session has ended`), while the person's other sessions keep working.
 *
 * A session is Cognito's `origin_jti` (identity/tokens.ts `Person.session`). An ended session
 * is an entry `session -> until` (epoch seconds: when no token of it can be valid any more) in
 * a map `endedSessions` kept on the items the pipeline already reads, so a request of a session
 * that never ended costs no extra DynamoDB request:
 * - on every membership item of the person (`USER#<sub>` / `MEMBER#<participantId>`): the
 *   pipeline's one auth read of a participant route returns it;
 * - on the person's sessions item (`USER#<sub>` / `SESSIONS`): read by `applicant` routes
 *   (a person acting for no participant: `GET /v1/me`, applications, invitations, sign-out),
 *   which otherwise read nothing to authenticate, and copied onto each new membership.
 * Entries are dropped once past `until`. Writes: identity/session-store.ts.
 */
import { getItem } from '../platform/table';

/** session id -> epoch seconds until which its tokens must be refused. */
export type EndedSessions = Record<string, number>;

export const sessionsKey = (sub: string) => ({ pk: `USER#${sub}`, sk: 'SESSIONS' });

/** Whether `session` is among the ended ones (and still needs refusing at `nowSec`). */
export const hasEnded = (ended: EndedSessions | undefined, session: string, nowSec = Date.now() / 1000): boolean =>
  ended !== undefined && Object.hasOwn(ended, session) && ended[session]! >= nowSec;

/** The entries still needed at `nowSec`. */
export const liveEntries = (ended: EndedSessions | undefined, nowSec = Date.now() / 1000): EndedSessions =>
  Object.fromEntries(Object.entries(ended ?? {}).filter(([, until]) => until >= nowSec));

/** The person's ended sessions (one strongly consistent GetItem of their sessions item). */
export async function endedSessionsOf(sub: string): Promise<EndedSessions | undefined> {
  const item = await getItem<{ pk: string; sk: string; endedSessions?: EndedSessions }>(sessionsKey(sub));
  return item?.endedSessions;
}
