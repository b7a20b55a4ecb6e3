/**
 * Two-factor authentication enforced by the API (DESIGN 10.3): a person who holds one of the
 * stage's `mfaRequiredRoles` (pool.ts; live: owner, admin) in any participant and has no
 * authenticator app on at Cognito (software-token MFA) is refused: 403 `Set up two-factor
 * authentication first`, on every route but the few the route table marks `mfaExempt`.
 *
 * Cognito access tokens say nothing of MFA (no `amr`), and the pool keeps MFA optional
 * (Cognito requires it per pool or per user, never per role), so the API asks Cognito:
 * `GetUser` with the person's own access token (`UserMFASettingList`), the call the dashboard's
 * Security page makes too; it needs no IAM permission, and the emulator answers it as AWS does.
 *
 * Only "the app is on" is kept, in this instance's memory, for at most `MFA_CACHE_SECONDS` (60 s
 * at most; docs/decisions/dashboard-sessions.md says why that bound is safe). Roles are read
 * afresh (a role gained anywhere counts at once), and a refusal is never kept: a person who has
 * just set up their app is let in on their next request.
 */
import { config } from '../config';
import { rolesOf } from './members';
import { USER_POOL } from './pool';
import type { Role } from './roles';
import { softwareTokenMfaOn } from './tokens';

/** The roles that must use MFA in `stage` (pool.ts, DESIGN 9.7). */
export const mfaRequiredRoles = (stage: 'sandbox' | 'live'): readonly Role[] => USER_POOL.mfaRequiredRoles[stage];

/** Bounds the per-instance state (one entry per person seen). */
const MAX_ENTRIES = 10_000;

/** Per-instance memory of "this person's authenticator app was on at `atMs`", each good for a bound from then. */
export class MfaCache {
  private readonly onAt = new Map<string, number>();

  /** Whether the person's app was seen on less than `boundMs` before `nowMs`. */
  isOn(sub: string, nowMs: number, boundMs: number): boolean {
    const at = this.onAt.get(sub);
    if (at === undefined) return false;
    if (nowMs - at < boundMs && at <= nowMs) return true;
    this.onAt.delete(sub);
    return false;
  }

  remember(sub: string, atMs: number): void {
    if (this.onAt.size >= MAX_ENTRIES && !this.onAt.has(sub)) this.onAt.clear();
    this.onAt.set(sub, atMs);
  }

  forget(sub: string): void {
    this.onAt.delete(sub);
  }
}

const cache = new MfaCache();

/**
 * Whether this person's request must be refused for want of MFA. `actingRole`: the role of the
 * membership the request acts with (none on applicant routes); any membership holding a
 * required role requires it, as the dashboard does (the sign-in is the person's, not one
 * membership's). A person whose app this instance saw on within the bound costs nothing;
 * otherwise their roles are read (one Query of their own partition, unless the acting role
 * already requires it) and, when one requires it, Cognito is asked.
 */
export async function mfaMissing(person: { sub: string }, accessToken: string, actingRole: Role | undefined): Promise<boolean> {
  const roles = mfaRequiredRoles(config.stage());
  if (roles.length === 0) return false;
  const nowMs = Date.now();
  if (cache.isOn(person.sub, nowMs, config.mfaCacheSeconds() * 1000)) return false;
  const required = (actingRole !== undefined && roles.includes(actingRole)) || (await rolesOf(person.sub)).some((r) => roles.includes(r));
  if (!required) return false;
  if (await softwareTokenMfaOn(accessToken)) {
    cache.remember(person.sub, nowMs);
    return false;
  }
  cache.forget(person.sub);
  return true;
}
