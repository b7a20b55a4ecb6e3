/**
 * Who is signed in, shared by every tab (DESIGN 9.7; docs/decisions/dashboard-sessions.md).
 *
 * - A person's Cognito tokens live in localStorage: one sign-in serves every tab of the
 *   dashboard, and a sign-in, a renewal or a sign-out in one tab reaches the others (the
 *   `storage` event). The operator key stays in the tab that signed in (sessionStorage).
 * - `accessToken()` renews the access token a minute before it expires (REFRESH_TOKEN_AUTH),
 *   one renewal at a time per tab; a refresh token Cognito refuses ends the session.
 * - `endSession(reason)`: the tokens go, and the sign-in form says why; the URL is kept, so
 *   signing in again returns to the page the person was on.
 */
import { useSyncExternalStore } from 'react';
import { refresh, type Tokens } from './cognito';
import type { DashboardConfig } from './config';

export type Stored = { type: 'person'; email: string; tokens: Tokens } | { type: 'operator'; key: string };

const PERSON = 'idpay.session';
const OPERATOR = 'idpay.operator';
const NOTICE = 'idpay.notice';
/** Renew this long before the access token expires. */
const EARLY_MS = 60_000;

function parse(raw: string | null): Stored | undefined {
  try {
    return raw ? (JSON.parse(raw) as Stored) : undefined;
  } catch {
    return undefined;
  }
}

let cached: { person: string | null; operator: string | null; value: Stored | undefined } | undefined;

/** The current session (the operator's in this tab first, then the person's shared one). */
export function readStored(): Stored | undefined {
  const person = localStorage.getItem(PERSON);
  const operator = sessionStorage.getItem(OPERATOR);
  if (!cached || cached.person !== person || cached.operator !== operator)
    cached = { person, operator, value: parse(operator) ?? parse(person) };
  return cached.value;
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
window.addEventListener('storage', (e) => {
  if (e.key === PERSON || e.key === null) notify();
});

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The session, re-rendering when it changes in this tab or another. */
export const useStored = (): Stored | undefined => useSyncExternalStore(subscribe, readStored);

export function startSession(s: Stored): void {
  sessionStorage.removeItem(NOTICE);
  if (s.type === 'operator') sessionStorage.setItem(OPERATOR, JSON.stringify(s));
  else localStorage.setItem(PERSON, JSON.stringify(s));
  notify();
}

/** Why the sign-in form is shown again (until the next sign-in). */
export const endNotice = (): string | undefined => sessionStorage.getItem(NOTICE) ?? undefined;

export const SESSION_ENDED = 'Your session has ended. Sign in again to continue where you were.';

/** Forgets the session (every tab for a person); `notice` is shown on the sign-in form. */
export function endSession(notice?: string): void {
  const s = readStored();
  if (notice) sessionStorage.setItem(NOTICE, notice);
  if (s?.type === 'operator') sessionStorage.removeItem(OPERATOR);
  else localStorage.removeItem(PERSON);
  notify();
}

let renewing: Promise<string> | undefined;

/** Renews the person's tokens now; a refused refresh token ends the session. */
export function renew(config: DashboardConfig): Promise<string> {
  renewing ??= (async () => {
    const s = readStored();
    if (s?.type !== 'person') throw new Error('Not signed in');
    if (!s.tokens.refreshToken) {
      endSession(SESSION_ENDED);
      throw new Error(SESSION_ENDED);
    }
    try {
      const tokens = await refresh(config, s.tokens.refreshToken);
      // Another tab may have signed out or in meanwhile: keep what is there then.
      const now = readStored();
      if (now?.type === 'person' && now.tokens.refreshToken === s.tokens.refreshToken) {
        localStorage.setItem(PERSON, JSON.stringify({ ...now, tokens }));
        notify();
      }
      return tokens.accessToken;
    } catch (e) {
      if ((e as { code?: string }).code === 'NetworkError') throw e;
      endSession(SESSION_ENDED);
      throw new Error(SESSION_ENDED);
    }
  })().finally(() => {
    renewing = undefined;
  });
  return renewing;
}

/** The bearer credential for the next call: the operator key, or a fresh access token. */
export async function accessToken(config: DashboardConfig): Promise<string> {
  const s = readStored();
  if (!s) throw new Error(SESSION_ENDED);
  if (s.type === 'operator') return s.key;
  if (s.tokens.expiresAt - Date.now() > EARLY_MS) return s.tokens.accessToken;
  return renew(config);
}
