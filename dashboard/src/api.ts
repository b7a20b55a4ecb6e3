/**
 * The API from the browser: `@idpay/sdk`'s typed client (same origin: `/v1/*` is routed to the
 * API by CloudFront, and served by the local server), answers unwrapped from the envelope,
 * and errors carrying the envelope's own message and details.
 */
import { createClient, type IdpayClient } from '@idpay/sdk';
import { rolesFor, type Role } from '../../functions/identity/roles';
import { findRoute, type HttpMethod, type ParticipantKind } from '../../functions/routes';
import { accessToken, endSession, readStored, renew, SESSION_ENDED } from './auth';
import type { DashboardConfig } from './config';

export type { IdpayClient };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: { path?: string; message: string }[] = [],
  ) {
    super(message);
  }
}

type Envelope<T> = T extends { data?: infer D } ? NonNullable<D> : never;

/** The `data` of a 2xx envelope; an ApiError with the envelope's message otherwise. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Envelope<T>> {
  const r = await call;
  if (r.response.ok) return ((r.data as { data?: unknown } | undefined)?.data ?? {}) as Envelope<T>;
  const e = (r.error ?? {}) as { message?: string; errors?: { path?: string; message: string }[] };
  throw new ApiError(r.response.status, e.message ?? `Request failed (${r.response.status})`, e.errors ?? []);
}

/**
 * The client of the signed-in session: each call carries a fresh credential (auth.ts renews
 * the access token before it expires). A 401 renews once and retries (the access token had
 * expired meanwhile); a second 401, or a renewal Cognito refuses, ends the session: the
 * sign-in form then opens and returns to this page (`Session has ended`, a revoked key).
 */
export function makeClient(config: DashboardConfig, participantId?: string): IdpayClient {
  const send = async (request: Request, credential: string) => {
    const headers = new Headers(request.headers);
    headers.set('Authorization', `Bearer ${credential}`);
    return fetch(new Request(request, { headers }));
  };
  return createClient({
    baseUrl: window.location.origin,
    apiKey: 'set-per-request',
    headers: participantId ? { 'X-Participant-Id': participantId } : {},
    retry: { maxRetries: 2 },
    fetch: async (request) => {
      const first = await send(request.clone(), await accessToken(config));
      if (first.status !== 401) return first;
      if (readStored()?.type === 'person') {
        const again = await send(request, await renew(config));
        if (again.status !== 401) return again;
      }
      endSession(SESSION_ENDED);
      return first;
    },
  });
}

/** A client for one credential, outside any session (the operator key checked before sign-in). */
export const clientFor = (key: string): IdpayClient => createClient({ baseUrl: window.location.origin, apiKey: key, retry: false });

/** Whom the dashboard acts as: a member with a role, or the operator. */
export interface Acting {
  kind: ParticipantKind;
  role?: Role;
  stage: 'sandbox' | 'live';
}

/**
 * May the viewer make this call? The route table's own rule (functions/routes.ts; the roles
 * in functions/identity/roles.ts): the participant kind, and a person's role for the route's
 * permission in this stage. Pages hide the buttons of calls that would be refused (a viewer
 * sees no write buttons).
 */
export function can(acting: Acting, method: HttpMethod, path: string): boolean {
  const route = findRoute(`${method} ${path}`);
  if (!route) return false;
  if (route.sandboxOnly && acting.stage !== 'sandbox') return false;
  if (!route.kinds.includes(acting.kind) && !(acting.kind === 'provider' && route.kinds.includes('merchant'))) return false;
  if (acting.kind === 'operator') return !route.caller;
  return acting.role ? rolesFor(route, acting.stage).includes(acting.role) : false;
}
