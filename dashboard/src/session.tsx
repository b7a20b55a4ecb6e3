/**
 * Who is signed in and for whom they act. A person signs in with Cognito (tokens kept in
 * sessionStorage: gone when the tab closes); `GET /v1/me` lists their memberships and the
 * participant they act for is sent as `X-Participant-Id`. The operator signs in with the
 * operator key (live and sandbox operations staff; never stored beyond the tab).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { can, makeClient, unwrap, type Acting, type IdpayClient } from './api';
import { refresh, type Tokens } from './cognito';
import type { DashboardConfig } from './config';
import type { HttpMethod } from '../../functions/routes';

export type Stored = { type: 'person'; email: string; tokens: Tokens } | { type: 'operator'; key: string };

export interface Membership {
  participantId: string;
  name: string | null;
  kind: 'bank' | 'merchant' | 'provider';
  role: 'owner' | 'admin' | 'developer' | 'viewer';
}

export interface SessionValue {
  config: DashboardConfig;
  stored: Stored;
  memberships: Membership[];
  /** The membership acted for (undefined: the operator, or a person with none yet). */
  current?: Membership;
  acting?: Acting;
  client: IdpayClient;
  can(method: HttpMethod, path: string): boolean;
  choose(participantId: string): void;
  reload(): Promise<void>;
  signOut(): void;
}

const KEY = 'idpay.session';
const PARTICIPANT = 'idpay.participant';

export const readStored = (): Stored | undefined => {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Stored) : undefined;
  } catch {
    return undefined;
  }
};
export const writeStored = (s: Stored | undefined) => (s ? sessionStorage.setItem(KEY, JSON.stringify(s)) : sessionStorage.removeItem(KEY));

const Ctx = createContext<SessionValue | undefined>(undefined);

export function useSession(): SessionValue {
  const v = useContext(Ctx);
  if (!v) throw new Error('useSession outside SessionProvider');
  return v;
}

export function SessionProvider(props: { config: DashboardConfig; stored: Stored; onSignOut: () => void; children: ReactNode }) {
  const { config, onSignOut } = props;
  const [stored, setStored] = useState(props.stored);
  const [memberships, setMemberships] = useState<Membership[] | undefined>(stored.type === 'operator' ? [] : undefined);
  const [chosen, setChosen] = useState<string | undefined>(() => sessionStorage.getItem(PARTICIPANT) ?? undefined);
  const [error, setError] = useState<string>();

  // Renew the access token a minute before it expires.
  useEffect(() => {
    if (stored.type !== 'person' || !stored.tokens.refreshToken) return;
    const left = stored.tokens.expiresAt - Date.now() - 60_000;
    const wait = Number.isFinite(left) ? Math.max(30_000, left) : 30 * 60_000;
    const t = setTimeout(() => {
      refresh(config, stored.tokens.refreshToken!)
        .then((tokens) => {
          const next: Stored = { ...stored, tokens };
          writeStored(next);
          setStored(next);
        })
        .catch(() => onSignOut());
    }, wait);
    return () => clearTimeout(t);
  }, [stored, config, onSignOut]);

  const token = stored.type === 'person' ? stored.tokens.accessToken : stored.key;
  const reload = useCallback(async () => {
    if (stored.type !== 'person') return;
    try {
      const me = await unwrap(makeClient(token).GET('/v1/me'));
      setMemberships(me.memberships as Membership[]);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [stored.type, token]);
  useEffect(() => void reload(), [reload]);

  const current = memberships?.find((m) => m.participantId === chosen) ?? memberships?.[0];
  const value = useMemo<SessionValue | undefined>(() => {
    if (!memberships) return undefined;
    const acting: Acting | undefined =
      stored.type === 'operator'
        ? { kind: 'operator', stage: config.stage }
        : current
          ? { kind: current.kind, role: current.role, stage: config.stage }
          : undefined;
    return {
      config,
      stored,
      memberships,
      current,
      acting,
      client: makeClient(token, current?.participantId),
      can: (method, path) => (acting ? can(acting, method, path) : false),
      choose: (id) => {
        sessionStorage.setItem(PARTICIPANT, id);
        setChosen(id);
      },
      reload,
      signOut: onSignOut,
    };
  }, [memberships, stored, current, config, token, reload, onSignOut]);

  if (error)
    return (
      <p role="alert" className="error">
        {error}
      </p>
    );
  if (!value)
    return (
      <p role="status" className="loading">
        Loading…
      </p>
    );
  return <Ctx.Provider value={value}>{props.children}</Ctx.Provider>;
}
