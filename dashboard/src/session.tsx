/**
 * The signed-in session's context: whom the person acts for (`GET /v1/me` lists their
 * memberships; the participant chosen is sent as `X-Participant-Id`), whether their
 * authenticator app is on and whether their roles require it (live owners and admins), and
 * sign-out. Credentials and their renewal live in auth.ts.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { can, makeClient, unwrap, type Acting, type IdpayClient } from './api';
import { accessToken, endSession, readStored, type Stored } from './auth';
import { revokeToken, totpEnabled } from './cognito';
import type { DashboardConfig } from './config';
import type { HttpMethod } from '../../functions/routes';
import { USER_POOL } from '../../functions/identity/pool';

export interface Membership {
  participantId: string;
  name: string | null;
  kind: 'bank' | 'merchant' | 'provider';
  role: 'owner' | 'admin' | 'developer' | 'viewer';
}

export interface Mfa {
  /** An authenticator app (TOTP) is set up. */
  enabled: boolean;
  /** A role of this person requires it in this stage (pool.ts `mfaRequiredRoles`). */
  required: boolean;
}

export interface SessionValue {
  config: DashboardConfig;
  stored: Stored;
  /** The person's e-mail (undefined for the operator). */
  email?: string;
  memberships: Membership[];
  /** The membership acted for (undefined: the operator, or a person with none yet). */
  current?: Membership;
  acting?: Acting;
  client: IdpayClient;
  mfa?: Mfa;
  can(method: HttpMethod, path: string): boolean;
  choose(participantId: string): void;
  reload(): Promise<void>;
  reloadMfa(): Promise<void>;
  signOut(): Promise<void>;
}

const PARTICIPANT = 'idpay.participant';

const Ctx = createContext<SessionValue | undefined>(undefined);

export function useSession(): SessionValue {
  const v = useContext(Ctx);
  if (!v) throw new Error('useSession outside SessionProvider');
  return v;
}

/** Ends the session: the API revokes a person's session (DESIGN 9.1); if it cannot, Cognito's RevokeToken does. */
async function signOutOf(config: DashboardConfig, client: IdpayClient, stored: Stored): Promise<void> {
  if (stored.type === 'person') {
    const refreshToken = stored.tokens.refreshToken;
    const r = await client.POST('/v1/me/sign-out', { body: refreshToken ? { refreshToken } : {} }).catch(() => undefined);
    if (!r?.response.ok && refreshToken) await revokeToken(config, refreshToken).catch(() => undefined);
  }
  endSession('You signed out.');
}

export function SessionProvider(props: { config: DashboardConfig; stored: Stored; children: ReactNode }) {
  const { config, stored } = props;
  const person = stored.type === 'person';
  const [memberships, setMemberships] = useState<Membership[] | undefined>(person ? undefined : []);
  const [totp, setTotp] = useState<boolean | undefined>(person ? undefined : false);
  const [chosen, setChosen] = useState<string | undefined>(() => sessionStorage.getItem(PARTICIPANT) ?? undefined);
  const [error, setError] = useState<string>();
  const [attempt, setAttempt] = useState(0);
  const base = useMemo(() => makeClient(config), [config]);

  const reload = useCallback(async () => {
    if (!person) return;
    try {
      const me = await unwrap(base.GET('/v1/me'));
      setMemberships(me.memberships as Membership[]);
    } catch (e) {
      if (readStored()) setError((e as Error).message);
    }
  }, [person, base]);
  const reloadMfa = useCallback(async () => {
    if (!person) return;
    try {
      setTotp(await totpEnabled(config, await accessToken(config)));
    } catch (e) {
      if (readStored()) setError((e as Error).message);
    }
  }, [person, config]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` re-runs the loads after an error
  useEffect(() => {
    setError(undefined);
    void reload();
    void reloadMfa();
  }, [reload, reloadMfa, attempt]);

  const current = memberships?.find((m) => m.participantId === chosen) ?? memberships?.[0];
  const participantId = current?.participantId;
  const client = useMemo(() => (participantId ? makeClient(config, participantId) : base), [config, base, participantId]);
  const value = useMemo<SessionValue | undefined>(() => {
    if (!memberships || totp === undefined) return undefined;
    const acting: Acting | undefined =
      stored.type === 'operator'
        ? { kind: 'operator', stage: config.stage }
        : current
          ? { kind: current.kind, role: current.role, stage: config.stage }
          : undefined;
    const requiredRoles: readonly string[] = USER_POOL.mfaRequiredRoles[config.stage];
    return {
      config,
      stored,
      email: stored.type === 'person' ? stored.email : undefined,
      memberships,
      current,
      acting,
      client,
      mfa: person ? { enabled: totp, required: memberships.some((m) => requiredRoles.includes(m.role)) } : undefined,
      can: (method, path) => (acting ? can(acting, method, path) : false),
      choose: (id) => {
        sessionStorage.setItem(PARTICIPANT, id);
        setChosen(id);
      },
      reload,
      reloadMfa,
      signOut: () => signOutOf(config, client, stored),
    };
  }, [memberships, totp, stored, current, config, client, person, reload, reloadMfa]);

  if (error)
    return (
      <main className="signin">
        <h1>The dashboard could not load your account</h1>
        <div role="alert" className="error">
          <p>{error}</p>
        </div>
        <div className="row">
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
          <button type="button" className="secondary" onClick={() => void signOutOf(config, base, stored)}>
            Sign out
          </button>
        </div>
      </main>
    );
  if (!value)
    return (
      <p role="status" className="loading">
        Loading…
      </p>
    );
  return <Ctx.Provider value={value}>{props.children}</Ctx.Provider>;
}
